import Foundation
import MicroHTTP
import PassHistory

/// A stored event as the live feed hands it to every client: decoded once (for the clients' filters) and encoded
/// once, in its Server-Sent Events wire form (`id`, `event: entitlement`, the ``EventView`` JSON). The bytes are one
/// buffer however many clients queue them.
struct LiveEvent: Sendable {
    let stored: StoredEvent
    let bytes: Data

    var id: Int64 { stored.id }

    /// `nil` when the event cannot be encoded (it is then left out, as the per-client feed did).
    init?(_ stored: StoredEvent, encoder: JSONEncoder) {
        guard let json = try? encoder.encode(EventView(stored)) else { return nil }
        self.stored = stored
        bytes = ServerSentEvent(id: UInt64(stored.id), event: "entitlement", data: String(decoding: json, as: UTF8.self)).encoded
    }

    /// What a client too slow to keep up gets last: `event: resync` carrying, as its `id` (so `EventSource` sends it
    /// back as `Last-Event-ID`) and in its data, the ID up to which the client has every event it matches; and a short
    /// `retry`, so it is back at once and reads its gap from the history.
    static func resyncNotice(after cursor: Int64, retryMilliseconds: Int) -> Data {
        Data("retry: \(retryMilliseconds)\nid: \(cursor)\nevent: resync\ndata: {\"lastEventId\":\(cursor)}\n\n".utf8)
    }
}
