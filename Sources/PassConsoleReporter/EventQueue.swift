/// One event waiting to be sent: its line of NDJSON, already redacted.
struct QueuedEvent: Sendable {
    /// The event's sequence in its session: increases by one per event, so it also orders the queue.
    var sequence: Int
    /// The event's wire JSON, without the newline.
    var line: String
    /// The reporter's own note about refused events: one refused in turn is not noted again.
    var isNote = false
}

/// The bounded offline queue: the newest ``capacity`` events in order; past the bound the oldest go, counted.
///
/// Also keeps the counts of events lost (dropped here, refused by the console) and how many of them the console has
/// not been told about yet (the `X-PassConsole-Dropped` header of the next request carries them).
struct EventQueue {
    let capacity: Int
    private var storage: [QueuedEvent] = []
    private var head = 0

    /// Events dropped because the queue was full.
    private(set) var dropped = 0
    /// Events the console refused (a 4xx set aside after its tries, or a line it could not read).
    private(set) var refused = 0
    /// Lost events (dropped or refused) the console has not been told about.
    private(set) var unreported = 0

    init(capacity: Int) { self.capacity = max(1, capacity) }

    var count: Int { storage.count - head }
    var isEmpty: Bool { count == 0 }

    /// Queues `event`, dropping the oldest when the queue is over its bound.
    mutating func append(_ event: QueuedEvent) {
        storage.append(event)
        if count > capacity {
            let excess = count - capacity
            head += excess
            dropped += excess
            unreported += excess
        }
        compact()
    }

    /// The oldest `limit` events, to send (they stay queued until the console has them).
    func oldest(_ limit: Int) -> [QueuedEvent] {
        Array(storage[head..<(head + min(max(1, limit), count))])
    }

    /// The console stored `batch` (sent with `reported` losses in its header) except the events at `unreadable`
    /// positions, which it could not read. Events of the batch dropped while it was on its way were delivered after
    /// all and stop counting as dropped.
    mutating func delivered(_ batch: [QueuedEvent], reported: Int, unreadable: Int) {
        let removed = removeThrough(batch)
        let deliveredAnyway = batch.count - removed
        dropped -= deliveredAnyway
        unreported = max(0, unreported - deliveredAnyway - reported)
        refused += unreadable
        unreported += unreadable
    }

    /// The console refused `batch` for good: its events leave the queue and count as refused.
    mutating func refuse(_ batch: [QueuedEvent]) {
        let removed = removeThrough(batch)
        refused += removed
        unreported += removed
    }

    /// Removes the events of `batch` still queued (the oldest ones, up to its last sequence); returns how many.
    private mutating func removeThrough(_ batch: [QueuedEvent]) -> Int {
        guard let last = batch.last?.sequence else { return 0 }
        var removed = 0
        while head < storage.count, storage[head].sequence <= last {
            head += 1
            removed += 1
        }
        compact()
        return removed
    }

    /// Frees the slots of events gone once they are half the storage.
    private mutating func compact() {
        if head > 64, head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }
}
