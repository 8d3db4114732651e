import Foundation
import PassStorage
import Locking

/// Writes one token-storage file behind the flows, the way the platform's own stores do (`UserDefaults`, the
/// pasteboard): a change is seen at once by every AccessEnabler of this process on that file and lands on disk a
/// moment later, several changes in one write.
///
/// - A flow's change (a token stored, a bucket cleared) is applied at once to ``expected``, what the engines read
///   next, and kept as pending.
/// - Pending changes land together — locked read-modify-write, `fsync`, atomic replace, see ``TokenStore`` — when
///   the engine's operation ends (``flushSoon()``: after `setToken`, not between the round trips that lead to it),
///   and at the latest ``deadline`` after the first of them (a long operation, a tvOS poll, a slow network).
/// - ``flushNow()`` (the console before it reads or changes a device's files, `AccessEnabler.waitForStorageWrites()`),
///   ``drain()`` (`settle()`) and the rules that must see the file (``writeNow(_:)``) land them first; so does a
///   normal exit of the process (`atexit`).
///
/// Callbacks do not wait for the disk. A crash before a write lands loses the newest changes and leaves the last
/// good state, as a crash during a write always did.
final class StorageWriter: Sendable {
    let store: TokenStore
    /// Reads the file for the engines, again only when it changed (it is read on every call).
    let reader: StorageReader<TokenStorage>
    /// How long a change may stay pending while an operation is still running.
    let deadline: Duration
    private let queue: DispatchQueue

    /// A change waiting for the file, with who hears that it did not land.
    private struct Change {
        var apply: @Sendable (inout TokenStorage) -> Void
        var failed: @Sendable (any Error) -> Void
    }

    private struct State {
        /// Changes not yet handed to the file, oldest first.
        var pending: [Change] = []
        /// The storage once every pending change (and the write on its way, if any) landed, as this process sees it;
        /// nil when none is (the file is the truth: another app may change it). Cleared only after a write (on
        /// `queue`, where writes take turns), so it stays set while one is on its way.
        var expected: TokenStorage?
        /// A deadline write is scheduled.
        var deadlineSet = false
    }
    private let state = Mutex(State())

    private init(store: TokenStore, deadline: Duration) {
        self.store = store
        self.deadline = deadline
        reader = StorageReader(file: store.file) { data in try data.map(TokenStore.decode) ?? TokenStorage() }
        // Default QoS, not `.background`: `drain()` and `writeNow` wait for this queue. On Linux `.background` runs the
        // thread at nice 10; with the CPUs busy it got a tenth of a core (priority inversion).
        queue = DispatchQueue(label: "AccessEnabler.storage.\(store.domain)")
    }

    // MARK: - One writer per file

    /// The writers alive in this process, by file path: two AccessEnablers on one storage (two apps of a team in one
    /// test process, the console's simulated apps) share one, so each reads the other's pending changes.
    private static let writers = Mutex<[String: WeakWriter]>([:])
    private struct WeakWriter { weak var writer: StorageWriter? }

    /// The process's writer for `store`'s file (symbolic links resolved), made on first use with `deadline`.
    static func shared(for store: TokenStore, deadline: Duration = .milliseconds(50)) -> StorageWriter {
        _ = registerExitFlush
        let key = store.file.url.resolvingSymlinksInPath().path(percentEncoded: false)
        return writers.withLock { writers in
            if let writer = writers[key]?.writer { return writer }
            writers = writers.filter { $0.value.writer != nil }
            let writer = StorageWriter(store: store, deadline: deadline)
            writers[key] = WeakWriter(writer: writer)
            return writer
        }
    }

    /// Lands the pending changes of every storage file of this process (with `folders`, only of the files in them)
    /// and waits until they are on disk.
    static func flushAll(in folders: [URL]? = nil) {
        let prefixes = folders?.map { folder in
            var path = folder.resolvingSymlinksInPath().path(percentEncoded: false)
            while path.hasSuffix("/") { path.removeLast() }
            return path + "/"
        }
        let chosen = writers.withLock { writers in
            writers.filter { key, _ in prefixes?.contains { key.hasPrefix($0) } ?? true }.values.compactMap(\.writer)
        }
        for writer in chosen { writer.flushNow() }
    }

    /// Lands every writer's pending changes when the process exits normally (a command-line tool that calls `exit`).
    private static let registerExitFlush: Void = {
        atexit { StorageWriter.flushAll() }
    }()

    // MARK: - Changes

    /// The storage as it will be once the pending changes land; nil when none is pending (the file is the truth).
    var expected: TokenStorage? { state.withLock { $0.expected } }

    /// Applies `change` to what this process sees and queues it for the file. `load` reads the file, when nothing is
    /// pending (under the writer's lock, so a write landing meanwhile is not missed). Returns the storage after the
    /// change, or nil when the change leaves it as it is (nothing is queued). `failed` hears why the write did not
    /// land (the file keeps its last good state).
    func write(
        _ change: @escaping @Sendable (inout TokenStorage) -> Void, load: () -> TokenStorage, failed: @escaping @Sendable (any Error) -> Void
    ) -> TokenStorage? {
        let (after, scheduleDeadline) = state.withLock { state -> (TokenStorage?, Bool) in
            let before = state.expected ?? load()
            var after = before
            change(&after)
            guard after != before else { return (nil, false) }
            state.expected = after
            state.pending.append(Change(apply: change, failed: failed))
            let scheduleDeadline = !state.deadlineSet
            state.deadlineSet = true
            return (after, scheduleDeadline)
        }
        if scheduleDeadline {
            let nanoseconds = deadline.components.seconds * 1_000_000_000 + deadline.components.attoseconds / 1_000_000_000
            queue.asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { self.landPending() }
        }
        return after
    }

    /// Lands the pending changes in the background, now (the operation that made them ended).
    func flushSoon() {
        guard state.withLock({ !$0.pending.isEmpty }) else { return }
        queue.async { self.landPending() }
    }

    /// Lands the pending changes and waits until they are on disk.
    func flushNow() {
        queue.sync { landPending() }
    }

    /// Waits until every change made so far is on disk.
    func drain() async {
        await withCheckedContinuation { continuation in
            queue.async {
                self.landPending()
                continuation.resume()
            }
        }
    }

    /// Applies `change` to the file now, after the pending changes, and returns what ``TokenStore/update(_:)`` did.
    func writeNow<T>(_ change: (inout TokenStorage) -> T) throws -> (result: T, storage: TokenStorage, changed: Bool) {
        try queue.sync {
            landPending()
            do {
                let result = try store.update(change)
                landed(result.storage)
                return result
            } catch {
                landed(nil)
                throw error
            }
        }
    }

    /// One locked write for every pending change (on `queue`).
    private func landPending() {
        let changes = state.withLock { state -> [Change] in
            defer {
                state.pending = []
                state.deadlineSet = false
            }
            return state.pending
        }
        guard !changes.isEmpty else { return }
        var storage: TokenStorage?
        do {
            storage = try store.update { storage in for change in changes { change.apply(&storage) } }.storage
        } catch {
            for change in changes { change.failed(error) }
        }
        landed(storage)
    }

    /// After a write (on `queue`): with nothing left to land the file is the truth again. Otherwise another engine
    /// queued a change while the write was on its way, over a file read from before it landed: what will be is what
    /// landed (`storage`; read again when the write failed) with the changes still pending.
    private func landed(_ storage: TokenStorage?) {
        let stillPending = state.withLock { state -> Bool in
            if state.pending.isEmpty { state.expected = nil }
            return state.expected != nil
        }
        guard stillPending, let base = storage ?? (try? reader.load()) else { return }
        state.withLock { state in
            guard !state.pending.isEmpty else { return }
            var rebuilt = base
            for change in state.pending { change.apply(&rebuilt) }
            state.expected = rebuilt
        }
    }
}
