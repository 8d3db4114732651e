/// An API method of the SDK, as an `apiCall` event names it. On the wire (stored history, NDJSON ingest, the
/// console's JSON) it is its ``rawValue``: the method's name as the seeds spell it (`getAuthorization`).
///
/// **Unknown names decode, they don't fail**: a name this build does not know — an event from a newer or another
/// reporter, or a stored one — becomes ``other(_:)`` carrying the name unchanged, and encodes back to the same bytes.
/// This decoder fallback is the migration: stored rows are never rewritten.
///
/// Switch over it without `default:` where every method matters (the console's labels do), so that adding a method
/// here fails the build until the console knows it.
public enum APIMethod: Hashable, Sendable {
    case setRequestor
    case setOptions
    case checkAuthentication
    case getAuthentication
    case checkAuthorization
    case getAuthorization
    case checkPreauthorizedResources
    case getMetadata
    case setSelectedProvider
    case getSelectedProvider
    case handleExternalURL
    case logout
    /// A name this build does not know (see the type's documentation).
    case other(String)

    /// Every method this build knows, in the seeds' order (not ``other(_:)``). Adding a case: list it here too;
    /// `APIMethodTests` fails while a known name decodes to ``other(_:)``.
    public static let known: [APIMethod] = [
        .setRequestor, .setOptions, .checkAuthentication, .getAuthentication, .checkAuthorization, .getAuthorization,
        .checkPreauthorizedResources, .getMetadata, .setSelectedProvider, .getSelectedProvider, .handleExternalURL,
        .logout,
    ]

    private static let byName: [String: APIMethod] = Dictionary(uniqueKeysWithValues: known.map { ($0.rawValue, $0) })

    /// Whether this is one of ``known``.
    public var isKnown: Bool { if case .other = self { false } else { true } }
}

/// Codable as its bare wire string: the standard library's coding of a `String`-backed `RawRepresentable` (whose
/// `init(rawValue:)` never fails here, so any name decodes).
extension APIMethod: RawRepresentable, Codable, CustomStringConvertible {
    /// The method named `rawValue`, or ``other(_:)`` when this build does not know it; never fails.
    public init(rawValue: String) {
        self = Self.byName[rawValue] ?? .other(rawValue)
    }

    /// The name on the wire.
    public var rawValue: String {
        switch self {
        case .setRequestor: "setRequestor"
        case .setOptions: "setOptions"
        case .checkAuthentication: "checkAuthentication"
        case .getAuthentication: "getAuthentication"
        case .checkAuthorization: "checkAuthorization"
        case .getAuthorization: "getAuthorization"
        case .checkPreauthorizedResources: "checkPreauthorizedResources"
        case .getMetadata: "getMetadata"
        case .setSelectedProvider: "setSelectedProvider"
        case .getSelectedProvider: "getSelectedProvider"
        case .handleExternalURL: "handleExternalURL"
        case .logout: "logout"
        case .other(let name): name
        }
    }

    public var description: String { rawValue }
}
