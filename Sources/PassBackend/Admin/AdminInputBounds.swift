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
    /// The most fault rules in force at once (150 rules of 900 KB each once took the process's memory ×3.7 and made
    /// `GET /admin/faults` a 128 MB answer).
    public static let maxRules = 100
    /// The most entries of the other lists of the faults (denials, degradations, MVPD overrides, refused browsers).
    public static let maxListEntries = 1_000
    /// The longest text a fault may hold (a path, a denial's message, a browser's name), in UTF-8 bytes.
    public static let maxText = 4_096
    /// The largest body an `/admin` call accepts: the biggest faults allowed fit, with room to spare.
    public static let maxBodySize = 1 << 20

    /// `422` when a list holds more than `limit` entries.
    static func checkCount(_ count: Int, named name: String, limit: Int) throws(HTTPError) {
        guard count <= limit else {
            throw HTTPError(.unprocessableEntity, code: "too_many_entries",
                message: "\(name) may hold at most \(limit) entries, not \(count).", detail: name)
        }
    }

    /// `422` when `text` is longer than ``maxText``.
    static func checkText(_ text: String?, named name: String) throws(HTTPError) {
        guard let text, text.utf8.count > maxText else { return }
        throw HTTPError(.unprocessableEntity, code: "text_too_long",
            message: "\(name) may be at most \(maxText) bytes long, not \(text.utf8.count).", detail: name)
    }

    static var clockOffsetRange: ClosedRange<Double> { Double(-clockOffset)...Double(clockOffset) }
}

extension FaultSettings: ValidatedBody {
    /// Checks every number against ``AdminInputBounds``.
    /// - Throws: a `400` naming the field and its range.
    public func validate() throws(HTTPError) {
        let bound = AdminInputBounds.clockOffset
        try BoundedInput.check(clockOffsetSeconds, named: "clockOffsetSeconds", in: -bound...bound)
        try AdminInputBounds.checkCount(rules.count, named: "rules", limit: AdminInputBounds.maxRules)
        for rule in rules { try rule.validate() }
        try throttle?.validate()
        let limit = AdminInputBounds.maxListEntries
        try AdminInputBounds.checkCount(denials.count, named: "denials", limit: limit)
        try AdminInputBounds.checkCount(degradations.count, named: "degradations", limit: limit)
        try AdminInputBounds.checkCount(mvpdOverrides.count, named: "mvpdOverrides", limit: limit)
        try AdminInputBounds.checkCount(refuseEmbeddedBrowsers.count, named: "refuseEmbeddedBrowsers", limit: limit)
        for denial in denials {
            try AdminInputBounds.checkText(denial.mvpd, named: "denials.mvpd")
            try AdminInputBounds.checkText(denial.resource, named: "denials.resource")
            try AdminInputBounds.checkText(denial.message, named: "denials.message")
        }
        for degradation in degradations {
            try AdminInputBounds.checkText(degradation.mvpd, named: "degradations.mvpd")
            try AdminInputBounds.checkText(degradation.requestor, named: "degradations.requestor")
        }
        for browser in refuseEmbeddedBrowsers { try AdminInputBounds.checkText(browser, named: "refuseEmbeddedBrowsers") }
        for (mvpd, override) in mvpdOverrides {
            try AdminInputBounds.checkText(mvpd, named: "mvpdOverrides (an MVPD's ID)")
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
        try AdminInputBounds.checkText(path, named: "path")
        try AdminInputBounds.checkText(method, named: "method")
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
