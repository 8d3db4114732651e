import Foundation
import MicroHTTP
import PassHistory

/// A stored event as the live feed hands it to every client: the row's facts (for the clients' filters) and its
/// Server-Sent Events wire form (`id`, `event: entitlement`, the event's stored view, what `GET /api/events` sends
/// for it too): nothing is decoded or encoded. The bytes are one buffer however many clients
/// queue them.
struct LiveEvent: Sendable {
    let id: Int64
    let facts: EventFacts
    let bytes: Data
    /// The stored view (the JSON in `bytes`'s data), for a client whose frames are rewritten (a viewer's, redacted).
    let view: String

    /// The live form of a row read for the feed.
    init(_ row: RawEventRow) {
        id = row.id
        facts = row.facts
        view = row.view
        bytes = ServerSentEvent(id: UInt64(row.id), event: "entitlement", data: view).encoded
    }

    /// The SSE frame of this event with its view rewritten (`rewrite` returns the new JSON).
    func frame(rewritingView rewrite: (String) -> String) -> Data {
        ServerSentEvent(id: UInt64(id), event: "entitlement", data: rewrite(view)).encoded
    }

    /// What a client too slow to keep up gets last: `event: resync` carrying, as its `id` (so `EventSource` sends it
    /// back as `Last-Event-ID`) and in its data, the ID up to which the client has every event it matches; and a short
    /// `retry`, so it is back at once and reads its gap from the history.
    static func resyncNotice(after cursor: Int64, retryMilliseconds: Int) -> Data {
        Data("retry: \(retryMilliseconds)\nid: \(cursor)\nevent: resync\ndata: {\"lastEventId\":\(cursor)}\n\n".utf8)
    }
}
