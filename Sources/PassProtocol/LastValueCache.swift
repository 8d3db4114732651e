import Locking

/// Remembers the value computed for the last key: for work repeated with the same key on every call (one app checks
/// its tokens against its one device ID; one login reports the same GUID), where a full cache would be overkill.
public final class LastValueCache<Key: Equatable & Sendable, Value: Sendable>: Sendable {
    private let last = Mutex<(key: Key, value: Value)?>(nil)

    /// An empty cache.
    public init() {}

    /// The value for `key`: the remembered one when `key` was the last asked for, else `make(key)`, remembered.
    public func value(for key: Key, _ make: (Key) -> Value) -> Value {
        if let hit = last.withLock({ $0?.key == key ? $0?.value : nil }) { return hit }
        let value = make(key)
        last.withLock { $0 = (key, value) }
        return value
    }
}
