/// Why a legacy REST v1 `Authorization` header could not be read (spec §5.4.2).
public enum LegacyAuthorizationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The header is empty or not shaped like `<METHOD> key=value, key=value, …`.
    case malformedHeader(String)
    /// A required `key=value` field is absent.
    case missingField(String)
    /// A field is present but its value is unusable (e.g. a non-numeric `request_time`).
    case invalidField(name: String, value: String)

    /// What was wrong, in plain words, suitable for a 401 answer's `details`.
    public var reason: String {
        switch self {
        case .malformedHeader(let detail):
            "Malformed Authorization header: \(detail)."
        case .missingField(let name):
            "Authorization header is missing the \(name) field."
        case .invalidField(let name, let value):
            "Authorization header field \(name) has an invalid value \"\(value)\"."
        }
    }

    /// The reason.
    public var description: String { reason }
}
