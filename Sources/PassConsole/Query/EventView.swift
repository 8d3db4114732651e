import AccessEnabler
import Foundation
import PassHistory

/// One event as the console API sends it: the stored event, its one-line summary, its kind as a word, and for
/// HTTP exchanges the fields a network list needs without digging into the event.
struct EventView: Encodable, Sendable {
    var id: Int64
    var summary: String
    var kind: EventKind
    var event: EntitlementEvent
    var http: HTTPSummary?

    struct HTTPSummary: Encodable, Sendable {
        var method: String
        var url: String
        var status: Int?
        var durationMs: Double
        var failure: String?
    }

    init(_ stored: StoredEvent) {
        id = stored.id
        summary = stored.summary
        kind = EventKind(stored.event.kind)
        event = stored.event
        if case .httpExchange(let exchange) = stored.event.kind {
            http = HTTPSummary(method: exchange.method, url: exchange.url, status: exchange.status,
                durationMs: exchange.durationMs, failure: exchange.failure)
        }
    }
}
