/// A document or encoded value that PassProtocol could not read: not well-formed, or missing a required part.
///
/// Thrown by the parsers of configuration XML, client information, SDK answers and other non-token
/// payloads. Token bodies throw ``TokenFormatError`` instead.
public struct PayloadFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, in plain words, e.g. `"missing element requestor/id"`.
    public var reason: String

    /// Creates an error with a plain-words reason.
    public init(_ reason: String) {
        self.reason = reason
    }

    /// The reason.
    public var description: String { reason }
}
