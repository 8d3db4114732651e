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
    private let work: @Sendable ([Item]) -> Void

    /// `work` runs on the queue's thread with up to 256 items at a time, in order.
    init(capacity: Int, work: @escaping @Sendable ([Item]) -> Void) {
        self.capacity = max(1, capacity)
        self.work = work
        let thread = Thread { [self] in run() }
        thread.name = "passconsole-recording"
        thread.start()
    }

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
        while true {
            wake.wait()
            while true {
                let batch = items.withLock { items -> [Item] in
                    let count = min(items.count, 256)
                    defer { items.removeFirst(count) }
                    return Array(items.prefix(count))
                }
                if batch.isEmpty { break }
                work(batch)
            }
        }
    }
}
