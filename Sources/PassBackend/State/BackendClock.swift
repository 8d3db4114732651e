import Foundation
import Locking

/// The backend's clock: real time plus an adjustable offset, so tests expire tokens without waiting and demos
/// show a server whose clock is off.
public final class BackendClock: Sendable {
    private let base: @Sendable () -> Date
    private let offset = Mutex<TimeInterval>(0)

    /// A clock over `base` (real time by default).
    public init(base: @escaping @Sendable () -> Date = { Date() }) {
        self.base = base
    }

    /// The backend's current time.
    public func now() -> Date { base().addingTimeInterval(offset.withLock { $0 }) }

    /// Seconds the clock is ahead of its base.
    public var offsetSeconds: TimeInterval {
        get { offset.withLock { $0 } }
        set { offset.withLock { $0 = newValue } }
    }

    /// Moves the clock forward.
    public func advance(by seconds: TimeInterval) { offset.withLock { $0 += seconds } }
}
