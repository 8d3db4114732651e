import Foundation

/// Faults and field conditions the backend reproduces on purpose, for tests and demos.
///
/// Set at start-up from the configuration's `faults` object, and at run time through `GET/PUT/DELETE
/// /admin/faults`. Every field is optional in JSON.
public struct FaultSettings: Codable, Sendable, Equatable {
    /// Per-endpoint latency, forced HTTP errors and malformed bodies.
    public var rules: [FaultRule]
    /// Throttling per client IP (`X-Forwarded-For` first), answering `429`; `nil` turns it off.
    public var throttle: ThrottleSettings?
    /// Resources an MVPD refuses, with the MVPD's message.
    public var denials: [Denial]
    /// Per-MVPD overrides of lifetimes and presentation.
    public var mvpdOverrides: [String: MVPDOverride]
    /// Logout ends on the MVPD's page instead of redirecting back to the app's redirect URL.
    public var logoutDropsRedirect: Bool
    /// Seconds the backend's clock runs ahead (positive) or behind (negative) real time.
    public var clockOffsetSeconds: Int
    /// MVPDs whose login page refuses embedded web views (answers `403` to a web-view user agent).
    public var refuseEmbeddedBrowsers: [String]
    /// Degraded access (REST API v2): rules that bypass an MVPD's authentication or authorization while it is down.
    public var degradations: [Degradation]

    /// Creates settings; by default no fault is active.
    public init(
        rules: [FaultRule] = [], throttle: ThrottleSettings? = nil, denials: [Denial] = [],
        mvpdOverrides: [String: MVPDOverride] = [:], logoutDropsRedirect: Bool = false, clockOffsetSeconds: Int = 0,
        refuseEmbeddedBrowsers: [String] = [], degradations: [Degradation] = []
    ) {
        self.rules = rules
        self.throttle = throttle
        self.denials = denials
        self.mvpdOverrides = mvpdOverrides
        self.logoutDropsRedirect = logoutDropsRedirect
        self.clockOffsetSeconds = clockOffsetSeconds
        self.refuseEmbeddedBrowsers = refuseEmbeddedBrowsers
        self.degradations = degradations
    }

    /// Decodes settings as `Config/demo.json` and `/admin/faults` write them; every field may be left out.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        rules = try c.decodeIfPresent([FaultRule].self, forKey: .rules) ?? []
        throttle = try c.decodeIfPresent(ThrottleSettings.self, forKey: .throttle)
        denials = try c.decodeIfPresent([Denial].self, forKey: .denials) ?? []
        mvpdOverrides = try c.decodeIfPresent([String: MVPDOverride].self, forKey: .mvpdOverrides) ?? [:]
        logoutDropsRedirect = try c.decodeIfPresent(Bool.self, forKey: .logoutDropsRedirect) ?? false
        clockOffsetSeconds = try c.decodeIfPresent(Int.self, forKey: .clockOffsetSeconds) ?? 0
        refuseEmbeddedBrowsers = try c.decodeIfPresent([String].self, forKey: .refuseEmbeddedBrowsers) ?? []
        degradations = try c.decodeIfPresent([Degradation].self, forKey: .degradations) ?? []
    }

    /// The degradation rule applied to `mvpd` for `requestor`, if any (the first that matches).
    public func degradation(requestor: String, mvpd: String) -> Degradation.Rule? {
        degradations.first { $0.mvpd == mvpd && ($0.requestor == nil || $0.requestor == requestor) }?.rule
    }

    /// The denial message for `resource` at `mvpd`, if one is set.
    public func denial(resource: String, mvpd: String) -> String? {
        denials.first { $0.resource == resource && ($0.mvpd == nil || $0.mvpd == mvpd) }?.message
    }
}

/// One endpoint fault: matched by path prefix (and method), it delays, fails or garbles the answer.
public struct FaultRule: Codable, Sendable, Equatable {
    /// A path prefix (`/adobe-services/1.0/authorizeDevice`, `/api/v1/`), or `*` for every path.
    public var path: String
    /// Only this method, when set.
    public var method: String?
    /// Extra delay before answering, in milliseconds.
    public var latencyMs: Int?
    /// Answer with this status instead of running the endpoint.
    public var status: Int?
    /// Cut the real answer's body in half (malformed XML/JSON).
    public var malformed: Bool?
    /// Apply this many times, then stop; `nil` for always.
    public var remaining: Int?

    /// Creates a rule for `path` (a prefix, or `*` for every path).
    public init(
        path: String, method: String? = nil, latencyMs: Int? = nil, status: Int? = nil, malformed: Bool? = nil,
        remaining: Int? = nil
    ) {
        self.path = path
        self.method = method
        self.latencyMs = latencyMs
        self.status = status
        self.malformed = malformed
        self.remaining = remaining
    }

    func matches(method: String, path: String) -> Bool {
        (self.path == "*" || path.hasPrefix(self.path)) && (self.method == nil || self.method == method)
            && (remaining ?? 1) > 0
    }
}

/// Token-bucket throttling per client IP, as the real service does (1 request/s, burst 10).
public struct ThrottleSettings: Codable, Sendable, Equatable {
    /// How fast the bucket refills.
    public var requestsPerSecond: Double
    /// How many requests the bucket holds (a burst answered before `429`).
    public var burst: Int

    /// Creates the settings; the defaults are the real service's.
    public init(requestsPerSecond: Double = 1, burst: Int = 10) {
        self.requestsPerSecond = requestsPerSecond
        self.burst = burst
    }
}

/// A degradation rule (docs/rest-api-v2.md §5.9): the service decides in the MVPD's place.
public struct Degradation: Codable, Sendable, Equatable {
    public enum Rule: String, Codable, Sendable {
        /// Bypass authentication (and authorization): every decision is a permit, a degraded profile stands in.
        case authNAll = "AuthNAll"
        /// Bypass authorization: every decision is a permit.
        case authZAll = "AuthZAll"
        /// Deny every authorization.
        case authZNone = "AuthZNone"
    }
    /// The MVPD degraded.
    public var mvpd: String
    /// Only for this Programmer; every one when nil.
    public var requestor: String?
    public var rule: Rule

    public init(mvpd: String, requestor: String? = nil, rule: Rule) {
        self.mvpd = mvpd
        self.requestor = requestor
        self.rule = rule
    }
}

/// An MVPD refusing one resource (package, parental control, region) with its own message.
public struct Denial: Codable, Sendable, Equatable {
    /// The MVPD that refuses; `nil` for every MVPD.
    public var mvpd: String?
    /// The resource it refuses.
    public var resource: String
    /// The MVPD's message, passed on to the app as its reason.
    public var message: String

    /// Creates a denial.
    public init(mvpd: String? = nil, resource: String, message: String) {
        self.mvpd = mvpd
        self.resource = resource
        self.message = message
    }
}

/// Per-MVPD overrides set at run time.
public struct MVPDOverride: Codable, Sendable, Equatable {
    /// Replaces the MVPD's authentication token lifetime (seconds).
    public var authnTTL: Int?
    /// Replaces its authorization token lifetime (seconds).
    public var authzTTL: Int?
    /// Replaces whether its login page must be shown in SFSafariViewController.
    public var requiresSVC: Bool?
    /// Replaces whether it has authentication per requestor: `true` simulates an MVPD that switches to it while apps
    /// still hold single sign-on copies of its tokens (the backend then refuses them, spec §8.4).
    public var authPerRequestor: Bool?

    /// Creates an override; `nil` leaves the configured value.
    public init(authnTTL: Int? = nil, authzTTL: Int? = nil, requiresSVC: Bool? = nil, authPerRequestor: Bool? = nil) {
        self.authnTTL = authnTTL
        self.authzTTL = authzTTL
        self.requiresSVC = requiresSVC
        self.authPerRequestor = authPerRequestor
    }
}
