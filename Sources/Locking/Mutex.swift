// The project's lock: Swift's `Synchronization.Mutex`, except in a ThreadSanitizer build (`make sanitize` passes
// `-DPASS_TSAN`), where it is a pthread mutex.
//
// Why: on Linux, `Synchronization.Mutex` locks with raw futex calls that ThreadSanitizer does not see, so every
// access made under it is reported as a race (measured: four threads adding under one `Mutex` gave three "Swift access
// race" reports; the same program with a pthread mutex gave none). ThreadSanitizer intercepts pthread mutexes, so
// with this one its reports are about real races only. Every module locks through `Locking`, never through
// `Synchronization` directly (`make sanitize` checks that).

#if PASS_TSAN
#if canImport(Glibc)
import Glibc
#endif

/// A value guarded by a pthread mutex, with `Synchronization.Mutex`'s interface (ThreadSanitizer builds only).
public final class Mutex<Value>: @unchecked Sendable {
    private var value: Value
    private let lock: UnsafeMutablePointer<pthread_mutex_t>

    /// Guards `initialValue`.
    public init(_ initialValue: consuming sending Value) {
        value = initialValue
        lock = .allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    public func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body(&value)
    }
}
#else
import Synchronization

/// `Synchronization.Mutex`.
public typealias Mutex<Value: ~Copyable> = Synchronization.Mutex<Value>
#endif
