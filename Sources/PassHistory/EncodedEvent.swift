import PassEvents
import Foundation
import Locking

/// An event on its way into the history: its stored view, its column values and the identities it names, worked out
/// before the write transaction (and on another thread than the writer's, ``EncodingPipeline``).
package struct EncodedEvent: Sendable {
    package var event: EntitlementEvent
    /// The stored view (``EventView``) without the event's ID, handed out when it is written.
    package var view: EventView.Parts
    /// The row's column values (`kind`, `requestorID`, `mvpdID`, `httpStatus`, `summary`, `timestamp`). Its device and
    /// app are the event's own; the row takes its session's (the same unless a session's events disagree).
    package var facts: EventFacts
    /// The user identities the event names (``EntitlementEvent/identityTerms``).
    package var terms: [SessionTerm]

    package init(_ event: EntitlementEvent) {
        self.event = event
        let summary = event.summary
        view = EventView.parts(of: event, summary: summary)
        facts = EventFacts(event, summary: summary)
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
