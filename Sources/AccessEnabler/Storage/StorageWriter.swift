import Foundation
import Synchronization

/// Writes the token storage behind the flows, in order, on one serial queue.
///
/// A flow's change (a token stored, a bucket cleared) is applied at once to what the engine reads next
/// (``expected``) and written to the file — locked read-modify-write, `fsync`, atomic replace, see ``TokenStore`` —
/// while the flow goes on to its next round trip. What the app is told waits for the disk: callbacks and async-API
/// answers pass through ``afterWrites(_:)``, so an app that hears `setAuthenticationStatus(1)` or `setToken` (and
/// exits, or starts a second app on the same storage) finds the token on disk. A crash before the write lands
/// leaves the last good state, as it always did.
final class StorageWriter: Sendable {
    let store: TokenStore
    private let queue: DispatchQueue

    private struct State {
        /// Writes queued and not yet landed.
        var writes = 0
        /// Callbacks waiting behind writes.
        var waiting = 0
        /// The storage once the queued writes land, as this app sees it; nil when none is queued.
        var expected: TokenStorage?
    }
    private let state = Mutex(State())

    init(store: TokenStore) {
        self.store = store
        // Default QoS, not `.background`: callbacks and async answers wait for this queue, so it is on the flow's
        // critical path. On Linux `.background` runs the queue's thread at nice 10; with the CPUs busy it got a tenth
        // of a core and held setToken for 12 ms behind a 1 ms write (priority inversion).
        queue = DispatchQueue(label: "AccessEnabler.storage.\(store.domain)")
    }

    /// The storage as it will be once the queued writes land; nil when nothing is queued (the file is the truth).
    var expected: TokenStorage? { state.withLock { $0.expected } }

    /// Queues `change` for the file; `expected` is the storage after it, which reads see until the write lands.
    /// `failed` hears why the write did not land (the file keeps its last good state).
    func write(
        expected: TokenStorage, _ change: @escaping @Sendable (inout TokenStorage) -> Void, failed: @escaping @Sendable (any Error) -> Void
    ) {
        state.withLock {
            $0.writes += 1
            $0.expected = expected
        }
        queue.async {
            do { try self.store.update(change) } catch { failed(error) }
            self.state.withLock {
                $0.writes -= 1
                if $0.writes == 0 { $0.expected = nil }
            }
        }
    }

    /// Creates the storage's folder and lock file in the background (at setRequestor, beside the configuration
    /// request), so the first token stored writes only the file. A failure is left for that write to report.
    func prepare() {
        queue.async { try? self.store.file.prepare() }
    }

    /// Applies `change` to the file now, after every queued write, and returns what ``TokenStore/update(_:)`` did.
    func writeNow<T>(_ change: (inout TokenStorage) -> T) throws -> (result: T, storage: TokenStorage, changed: Bool) {
        try queue.sync { try store.update(change) }
    }

    /// Runs `action` once every write queued so far has landed: at once when none is queued. Actions keep the
    /// order they were handed in.
    func afterWrites(_ action: @escaping @Sendable () -> Void) {
        let behind = state.withLock { state in
            guard state.writes + state.waiting > 0 else { return false }
            state.waiting += 1
            return true
        }
        guard behind else { return action() }
        queue.async {
            action()
            self.state.withLock { $0.waiting -= 1 }
        }
    }

    /// Waits until every write and callback queued so far has been handed on.
    func drain() async {
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    }

    /// ``drain()`` for synchronous callers (the console reads a device's files after its apps' writes landed).
    func drainNow() { queue.sync {} }
}
