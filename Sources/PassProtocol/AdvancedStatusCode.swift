/// The advanced status codes delivered through `EntitlementStatus.status:` (spec §3.3).
///
/// Raw values are the wire IDs (`errorId`). `CFG5xx` and the `IS…` families stand for ranges; ``init(id:)``
/// maps a concrete ID such as `CFG503` to its family and accepts every Apple-error spelling.
/// `N110` and `N140`–`N200` are deliberately absent: no public source defines them.
public enum AdvancedStatusCode: String, CaseIterable, Codable, Sendable {
    /// User not authenticated.
    case N000
    /// Passive authentication started in the background.
    case N001
    /// User chose "Other TV Provider" in the Apple picker.
    case N003
    /// User chose an unsupported provider in the Apple picker.
    case N004
    /// The MVPD picker was cancelled.
    case N005
    /// Authenticated under an authenticate-all degradation rule.
    case N010
    /// Authenticated with TempPass.
    case N011
    /// TempPass expired.
    case N111
    /// Authentication token not found on the session.
    case N130
    /// Internal authentication error.
    case N500
    /// Authorized under a degradation rule.
    case Z010
    /// Authorized with TempPass.
    case Z011
    /// The MVPD denied authorization.
    case Z100
    /// Denied after repeated MVPD denials.
    case Z110
    /// Denied for technical reasons talking to the MVPD.
    case Z120
    /// Invalid or malformed resource.
    case Z130
    /// Denied by an `authzNone` degradation rule.
    case Z169
    /// Internal authorization error.
    case Z500
    /// Preauthorization failed.
    case P100
    /// Device date, time or time zone is wrong.
    case CFG100
    /// Invalid requestor ID.
    case CFG400
    /// Adobe servers not found.
    case CFG404
    /// AccessEnabler too old.
    case CFG410
    /// `setRequestor` throttled.
    case CFG429
    /// Adobe server internal error (any `CFG5nn`).
    case CFG5xx
    /// Domain or certificate security error.
    case SEC403
    /// Device ID mismatch: stored tokens cleared.
    case SEC412
    /// HTTPS security error (proxy or man in the middle).
    case SEC420
    /// App not registered: software statement invalid or revoked.
    case R400
    /// Could not obtain an access token.
    case R401
    /// Registration code could not be fetched.
    case REG500
    /// A registration code to show for second-screen login (tvOS; level `Success`).
    case REGCODE
    /// Internal error (ID `500`).
    case internalError = "500"
    /// Logout under Apple SSO: the user must also sign out in Settings.
    case VSA203
    /// TV Provider permission denied for the app.
    case VSA403
    /// TV Provider permission undetermined.
    case VSA404
    /// Video Subscriber Account metadata request failed.
    case VSA503
    /// Generic Apple SSO failure (`AAPL`, `AAPL_ERROR`, `APPL`, `APPL_ERROR`).
    case AAPL_ERROR
    /// Volatile storage (JS only).
    case LS011
    /// Individualization failed (JS only).
    case IS0
    /// Individualization endpoint answered 2xx unexpectedly (JS only).
    case IS2xx
    /// Individualization endpoint answered 4xx (JS only).
    case IS4xx
    /// Individualization endpoint answered 5xx (JS only).
    case IS5xx

    /// The code for a wire ID, mapping `CFG5nn`/`IS2nn`/… to their family and the four Apple spellings
    /// to ``AAPL_ERROR``; `nil` for IDs no public source defines.
    public init?(id: String) {
        if let exact = AdvancedStatusCode(rawValue: id) {
            self = exact
            return
        }
        let family: [(prefix: String, code: AdvancedStatusCode)] = [
            ("CFG5", .CFG5xx), ("IS2", .IS2xx), ("IS4", .IS4xx), ("IS5", .IS5xx),
        ]
        if let match = family.first(where: { id.hasPrefix($0.prefix) && id.count == $0.prefix.count + 2 }),
            id.suffix(2).allSatisfy(\.isNumber)
        {
            self = match.code
        } else if ["AAPL", "APPL", "APPL_ERROR"].contains(id) {
            self = .AAPL_ERROR
        } else {
            return nil
        }
    }

    /// The status level delivered with the code.
    public var level: AdvancedStatusLevel {
        switch self {
        case .N000, .N001, .N003, .N004, .N005, .N011, .Z011, .VSA203, .VSA403, .VSA404, .VSA503: .info
        case .N010, .N111, .Z010, .CFG100, .SEC412, .LS011: .warning
        case .REGCODE: .success
        default: .error
        }
    }

    /// Whether the iOS/tvOS SDK emits this code (some exist only in the JS or Android SDKs).
    public var emittedByIOS: Bool {
        switch self {
        case .CFG410, .LS011, .IS0, .IS2xx, .IS4xx, .IS5xx: false
        default: true
        }
    }
}

/// The `level` of an advanced status.
public enum AdvancedStatusLevel: String, Codable, Sendable, CaseIterable {
    /// Information; the flow continues.
    case info
    /// Something degraded; the flow continues.
    case warning
    /// The flow failed.
    case error
    /// Used only by `REGCODE`, spelled `Success`.
    case success = "Success"
}
