/// Which of the SDK's state machines a `stateChanged` event is about. On the wire it is its ``rawValue``.
///
/// Unknown names decode to ``other(_:)`` unchanged and encode back to the same bytes (a decoder fallback, no
/// migration of stored rows), as ``APIMethod`` does.
public enum FlowKind: Hashable, Sendable {
    /// `RequestorStateMachine`: setRequestor and the calls waiting for it.
    case requestor
    /// `AuthenticationStateMachine`: picker, MVPD login, tvOS polling, token, logout.
    case authentication
    /// A flow this build does not know.
    case other(String)

    /// Every flow this build knows (not ``other(_:)``).
    public static let known: [FlowKind] = [.requestor, .authentication]
}

/// Codable as its bare wire string: the standard library's coding of a `String`-backed `RawRepresentable` (whose
/// `init(rawValue:)` never fails here, so any name decodes).
extension FlowKind: RawRepresentable, Codable, CustomStringConvertible {
    /// The flow named `rawValue`, or ``other(_:)``; never fails.
    public init(rawValue: String) {
        switch rawValue {
        case "requestor": self = .requestor
        case "authentication": self = .authentication
        default: self = .other(rawValue)
        }
    }

    public var rawValue: String {
        switch self {
        case .requestor: "requestor"
        case .authentication: "authentication"
        case .other(let name): name
        }
    }

    public var description: String { rawValue }
}

/// A state of one of the SDK's flows, as a `stateChanged` event reports it, with the payload the console shows
/// (the MVPD, the tvOS registration code, how many calls wait). The state machines hold more (whether a login is
/// passive, the polling schedule); this is what leaves the SDK.
///
/// On the wire it is its ``rawValue``, the text the state machines have always written: `idle`,
/// `awaitingLogin(Dish)`, `polling(Dish, ABC1234)`, `configuring (2 queued)`.
///
/// **Unknown or malformed text decodes, it doesn't fail**: anything that does not read back to exactly the same
/// text becomes ``other(_:)`` holding it, so a stored event or one from another reporter encodes back byte for byte.
/// This decoder fallback is the migration: stored rows are never rewritten.
public enum FlowState: Hashable, Sendable {
    // The requestor flow.
    case unconfigured
    /// setRequestor runs; `queued` calls wait for it.
    case configuring(queued: Int)
    case ready
    case failed
    // The authentication flow.
    case idle
    case pickingProvider
    case awaitingLogin(mvpd: String)
    /// tvOS: the registration code is shown and the SDK polls until someone signs in with it.
    case polling(mvpd: String, code: String)
    case fetchingToken(mvpd: String)
    case loggingOut
    /// Text this build does not read as a state (see the type's documentation).
    case other(String)

    /// A state without its payload: the closed set the console's tables (labels, diagram steps) are keyed by.
    public enum Name: String, CaseIterable, Sendable {
        case unconfigured, configuring, ready, failed
        case idle, pickingProvider, awaitingLogin, polling, fetchingToken, loggingOut
    }

    /// The state's name; nil for ``other(_:)``.
    public var name: Name? {
        switch self {
        case .unconfigured: .unconfigured
        case .configuring: .configuring
        case .ready: .ready
        case .failed: .failed
        case .idle: .idle
        case .pickingProvider: .pickingProvider
        case .awaitingLogin: .awaitingLogin
        case .polling: .polling
        case .fetchingToken: .fetchingToken
        case .loggingOut: .loggingOut
        case .other: nil
        }
    }

    /// The MVPD the state is about, if it names one.
    public var mvpd: String? {
        switch self {
        case .awaitingLogin(let mvpd), .polling(let mvpd, _), .fetchingToken(let mvpd): mvpd
        default: nil
        }
    }
}

/// Codable as its bare wire string: the standard library's coding of a `String`-backed `RawRepresentable` (whose
/// `init(rawValue:)` never fails here, so any name decodes).
extension FlowState: RawRepresentable, Codable, CustomStringConvertible {
    /// The state `rawValue` writes, or ``other(_:)`` when it does not read back to exactly `rawValue`; never fails.
    public init(rawValue: String) {
        self = Self.parse(rawValue).flatMap { $0.rawValue == rawValue ? $0 : nil } ?? .other(rawValue)
    }

    public var rawValue: String {
        switch self {
        case .unconfigured: "unconfigured"
        case .configuring(let queued): queued == 0 ? "configuring" : "configuring (\(queued) queued)"
        case .ready: "ready"
        case .failed: "failed"
        case .idle: "idle"
        case .pickingProvider: "pickingProvider"
        case .awaitingLogin(let mvpd): "awaitingLogin(\(mvpd))"
        case .polling(let mvpd, let code): "polling(\(mvpd), \(code))"
        case .fetchingToken(let mvpd): "fetchingToken(\(mvpd))"
        case .loggingOut: "loggingOut"
        case .other(let text): text
        }
    }

    public var description: String { rawValue }

    private static func parse(_ text: String) -> FlowState? {
        if text.hasPrefix("configuring ("), text.hasSuffix(" queued)") {
            return Int(text.dropFirst("configuring (".count).dropLast(" queued)".count)).map { .configuring(queued: $0) }
        }
        guard let open = text.firstIndex(of: "("), text.hasSuffix(")") else {
            return Name(rawValue: text).flatMap { name in
                switch name {
                case .unconfigured: .unconfigured
                case .configuring: .configuring(queued: 0)
                case .ready: .ready
                case .failed: .failed
                case .idle: .idle
                case .pickingProvider: .pickingProvider
                case .loggingOut: .loggingOut
                case .awaitingLogin, .polling, .fetchingToken: nil
                }
            }
        }
        let inside = String(text[text.index(after: open)..<text.index(before: text.endIndex)])
        switch Name(rawValue: String(text[..<open])) {
        case .awaitingLogin: return .awaitingLogin(mvpd: inside)
        case .fetchingToken: return .fetchingToken(mvpd: inside)
        case .polling:
            guard let comma = inside.range(of: ", ") else { return nil }
            return .polling(mvpd: String(inside[..<comma.lowerBound]), code: String(inside[comma.upperBound...]))
        default: return nil
        }
    }
}
