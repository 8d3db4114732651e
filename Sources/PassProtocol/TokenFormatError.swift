/// A token string or body that is not in the documented format.
///
/// Thrown by ``SignedToken/parse(_:)`` and by each ``TokenBody/parse(body:)``. The reason names the part
/// that was wrong, so it can be shown as is in the console ("missing element simpleTokenMsoID").
public struct TokenFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, in plain words.
    public var reason: String

    /// Creates an error with a plain-words reason.
    public init(_ reason: String) {
        self.reason = reason
    }

    /// The reason.
    public var description: String { reason }
}
