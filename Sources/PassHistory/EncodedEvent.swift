import PassEvents
import Foundation
import Locking

/// An event as a row: its stored JSON, its summary and its indexed column values, worked out before the write
/// transaction.
package struct EncodedEvent: Sendable {
    package var event: EntitlementEvent
    /// The stored view (``EventView``) without the event's ID, handed out when it is written.
    package var view: EventView.Parts
    package var summary: String
    package var facets: EventFacets
    /// The user identities the event names (``EntitlementEvent/identityTerms``).
    package var terms: [SessionTerm]

    package init(_ event: EntitlementEvent) {
        self.event = event
        summary = event.summary
        view = EventView.parts(of: event, summary: summary)
        var status: Int?
        if case .httpExchange(let exchange) = event.kind { status = exchange.status ?? 0 }
        facets = EventFacets(kind: EventKind(event.kind), requestorID: event.requestorID, mvpdID: event.mvpdID, httpStatus: status)
        terms = event.identityTerms
    }
}

/// A batch being encoded on another thread while the writer stores what is ready: the batch is cut into chunks, a
/// background thread encodes them in order, and ``chunk(_:)`` waits for one. With two cores the JSON encoding of
/// the next chunk overlaps SQLite's work on this one instead of coming before it.
final class EncodingPipeline: Sendable {
    let count: Int
    private let slots: [Slot]

    private final class Slot: Sendable {
        let ready = DispatchSemaphore(value: 0)
        let rows = Mutex<[EncodedEvent]>([])
    }

    init(_ events: [EntitlementEvent], chunkSize: Int = 64) {
        let size = max(1, chunkSize)
        let ranges = stride(from: 0, to: events.count, by: size).map { $0..<min($0 + size, events.count) }
        count = ranges.count
        let slots = ranges.map { _ in Slot() }
        self.slots = slots
        guard !ranges.isEmpty else { return }
        @Sendable func encode(_ slot: Slot, _ range: Range<Int>) {
            let rows = events[range].map(EncodedEvent.init)
            slot.rows.withLock { $0 = rows }
            slot.ready.signal()
        }
        // One chunk (a live event, a small batch): encoded here, a thread hop would cost more than it saves.
        guard ranges.count > 1 else {
            encode(slots[0], ranges[0])
            return
        }
        DispatchQueue.global(qos: .userInitiated).async {
            for (slot, range) in zip(slots, ranges) { encode(slot, range) }
        }
    }

    /// Chunk `index`'s rows, waiting until they are encoded.
    func chunk(_ index: Int) -> [EncodedEvent] {
        slots[index].ready.wait()
        return slots[index].rows.withLock { rows in
            defer { rows = [] }
            return rows
        }
    }
}

/// The indexed column values of one event (`kind`, `requestorID`, `mvpdID`, `httpStatus`), worked out when it is
/// encoded.
package struct EventFacets: Sendable {
    package var kind: EventKind
    package var requestorID: String?
    package var mvpdID: String?
    /// An HTTP exchange's status (0: no answer); `nil` for other kinds.
    package var httpStatus: Int?
}
