import Foundation

/// One use of a registration code on a second screen (the activation page or `/api/v1/authenticate`), kept so a
/// console can tell why a TV's code never activated (field problem #34: a mangled `reg_code`, a code of another
/// requestor or environment, an expired code, or nobody trying at all).
public struct ActivationAttempt: Codable, Sendable, Equatable {
    /// When the attempt was made (backend clock).
    public var at: Date
    /// The code as sent, upper-cased (`""` when none could be read).
    public var code: String
    /// `activation page` or `authenticate`.
    public var via: String
    /// The requestor the attempt named, if any.
    public var requestorID: String?
    /// The MVPD the attempt named, if any.
    public var mvpdID: String?
    /// `accepted`, or why not: `unknown_code`, `wrong_requestor`, `expired`, `unknown_mvpd`, `missing_parameter`,
    /// `mangled_parameter` (`&reg_code` turned into `®_code` by a browser).
    public var outcome: String
    /// The reason in words.
    public var detail: String

    /// Creates an attempt.
    public init(at: Date, code: String, via: String, requestorID: String?, mvpdID: String?, outcome: String, detail: String) {
        self.at = at
        self.code = code
        self.via = via
        self.requestorID = requestorID
        self.mvpdID = mvpdID
        self.outcome = outcome
        self.detail = detail
    }
}

/// A registration code's life for the console: when it was made and expires, whether its sign-in happened, and every
/// attempt to use it (`GET /admin/regcodes/{code}`).
public struct RegcodeLife: Codable, Sendable, Equatable {
    /// The registration code.
    public var code: String
    /// The requestor that asked for it.
    public var requestor: String
    /// The device (TV) it was made for.
    public var deviceId: String
    /// When it was made.
    public var created: Date
    /// When it stops being accepted.
    public var expires: Date
    /// A sign-in exists for the code's device and requestor.
    public var activated: Bool
    /// Every attempt to use it, oldest first.
    public var attempts: [ActivationAttempt]

    /// Creates a code's life.
    public init(code: String, requestor: String, deviceId: String, created: Date, expires: Date, activated: Bool, attempts: [ActivationAttempt]) {
        self.code = code
        self.requestor = requestor
        self.deviceId = deviceId
        self.created = created
        self.expires = expires
        self.activated = activated
        self.attempts = attempts
    }
}
