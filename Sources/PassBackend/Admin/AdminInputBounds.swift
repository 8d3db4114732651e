import Foundation
import MicroHTTP

/// The ranges the admin API accepts, checked on every body before it changes anything: a clock moved by `1e300`
/// seconds or a status of `-1` would otherwise trap later, in date arithmetic or a status line, and stop the whole
/// process (console, backend and demo apps share it).
public enum AdminInputBounds {
    /// How far the backend's clock may be moved from real time, either way: 100 years, in seconds.
    public static let clockOffset = 100 * 365 * 86_400
    /// The longest token lifetime an MVPD override may set: 10 years, in seconds.
    public static let ttl = 1...(10 * 365 * 86_400)
    /// The longest injected latency: 10 minutes.
    public static let latencyMs = 0...600_000
    /// Statuses a fault rule may answer with.
    public static let status = 100...599
    /// The most uses a fault rule may be limited to.
    public static let remaining = 0...Int(Int32.max)
    /// `GET /admin/activations?limit=`.
    public static let activationsLimit = 1...10_000

    static var clockOffsetRange: ClosedRange<Double> { Double(-clockOffset)...Double(clockOffset) }
}

extension FaultSettings: ValidatedBody {
    /// Checks every number against ``AdminInputBounds``.
    /// - Throws: a `400` naming the field and its range.
    public func validate() throws(HTTPError) {
        let bound = AdminInputBounds.clockOffset
        try BoundedInput.check(clockOffsetSeconds, named: "clockOffsetSeconds", in: -bound...bound)
        for rule in rules { try rule.validate() }
        try throttle?.validate()
        for (mvpd, override) in mvpdOverrides {
            try BoundedInput.check(override.authnTTL, named: "mvpdOverrides.\(mvpd).authnTTL", in: AdminInputBounds.ttl)
            try BoundedInput.check(override.authzTTL, named: "mvpdOverrides.\(mvpd).authzTTL", in: AdminInputBounds.ttl)
        }
    }
}

extension FaultRule: ValidatedBody {
    /// Checks every number against ``AdminInputBounds``.
    /// - Throws: a `400` naming the field and its range.
    public func validate() throws(HTTPError) {
        try BoundedInput.check(status, named: "status", in: AdminInputBounds.status)
        try BoundedInput.check(latencyMs, named: "latencyMs", in: AdminInputBounds.latencyMs)
        try BoundedInput.check(remaining, named: "remaining", in: AdminInputBounds.remaining)
    }
}

extension ThrottleSettings: ValidatedBody {
    /// Checks every number against ``AdminInputBounds``.
    /// - Throws: a `400` naming the field and its range.
    public func validate() throws(HTTPError) {
        try BoundedInput.check(requestsPerSecond, named: "throttle.requestsPerSecond", in: 0...1_000_000)
        try BoundedInput.check(burst, named: "throttle.burst", in: 1...1_000_000)
    }
}

extension AdminRoutes.ClockChange: ValidatedBody {
    func validate() throws(HTTPError) {
        try BoundedInput.check(advanceSeconds, named: "advanceSeconds", in: AdminInputBounds.clockOffsetRange)
        try BoundedInput.check(offsetSeconds, named: "offsetSeconds", in: AdminInputBounds.clockOffsetRange)
    }
}
