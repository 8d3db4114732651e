import DequeModule
import Foundation
import Locking
#if canImport(Glibc)
    import Glibc
#endif

/// Keeps recording off the answer's path: the server thread only queues what it answered (a request and a response
/// are copy-on-write values: no bytes are copied), and one background thread at a lower scheduling priority turns
/// them into events. A busy service keeps its speed: the thread gets what CPU the requests leave, and past
/// ``capacity`` waiting exchanges the oldest are dropped and counted (``droppedCount``), never the requests slowed.
final class RecordingQueue<Item: Sendable>: @unchecked Sendable {
    let capacity: Int
    private let items = Mutex(Deque<Item>())
    private let dropped = Mutex(0)
    private let wake = DispatchSemaphore(value: 0)
    private let work: @Sendable ([Item], Int) -> Void

    /// `work` runs on the queue's thread with up to 256 items at a time, in order, and how many items were dropped
    /// since its last call (before these items).
    init(capacity: Int, work: @escaping @Sendable ([Item], Int) -> Void) {
        self.capacity = max(1, capacity)
        self.work = work
        let thread = Thread { [self] in run() }
        thread.name = "passconsole-recording"
        thread.start()
    }

    /// How long the thread lets exchanges gather after a batch smaller than the most it takes at once.
    static var gatherMicroseconds: UInt32 { 2_000 }

    /// Exchanges dropped because more than ``capacity`` waited.
    var droppedCount: Int { dropped.withLock { $0 } }

    private struct Added {
        var wasEmpty: Bool
        var overflow: Bool
    }

    /// Queues `item`; never waits.
    func add(_ item: Item) {
        // A struct, not a tuple: the lock's generic closure would look a tuple's metadata up on every request.
        let added = items.withLock { items -> Added in
            let wasEmpty = items.isEmpty
            items.append(item)
            guard items.count > capacity else { return Added(wasEmpty: wasEmpty, overflow: false) }
            items.removeFirst()
            return Added(wasEmpty: wasEmpty, overflow: true)
        }
        if added.overflow { dropped.withLock { $0 += 1 } }
        if added.wasEmpty { wake.signal() }
    }

    private func run() {
        #if canImport(Glibc)
            // Below the server's threads: recording takes the CPU the answers leave. (On Linux a nice value is the
            // thread's own, and `who` 0 names the calling thread.)
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        #endif
        var told = 0
        while true {
            wake.wait()
            while true {
                let batch = items.withLock { items -> [Item] in
                    let count = min(items.count, 256)
                    defer { items.removeFirst(count) }
                    return Array(items.prefix(count))
                }
                let dropped = droppedCount
                let newlyDropped = dropped - told
                told = dropped
                if batch.isEmpty {
                    if newlyDropped > 0 { work([], newlyDropped) }
                    break
                }
                work(batch, newlyDropped)
                // Let the next exchanges gather for a moment (a few hundred at full speed) instead of being woken
                // for each: at 30k answers/s a wake per answer was a futex call and a context switch per request
                // on the server's side. Events reach the console at most this much later.
                if batch.count < 256 { usleep(Self.gatherMicroseconds) }
            }
        }
    }
}
