import Foundation

/// An error a handler throws to answer with a status and a JSON body `{"error": code, "message": …, "detail": …}`.
///
/// ```swift
/// throw HTTPError(.notFound, code: "unknown_requestor", message: "No Programmer has the ID 'X'.")
/// ```
/// Any other error thrown by a handler becomes a `500` that reveals nothing about the server's internals.
public struct HTTPError: Error, Sendable, Equatable {
    /// The status to answer with.
    public var status: HTTPStatus
    /// A stable, machine-readable code (`"payload_too_large"`).
    public var code: String
    /// What went wrong, in words a person can act on.
    public var message: String
    /// More detail (the offending value, the limit), or `nil`.
    public var detail: String?
    /// Extra headers for the answer (for example `Retry-After` or `Allow`).
    public var headers: [String: String]

    /// Creates an error answer.
    public init(_ status: HTTPStatus, code: String, message: String, detail: String? = nil, headers: [String: String] = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.detail = detail
        self.headers = headers
    }

    private struct Payload: Encodable {
        var error: String
        var message: String
        var detail: String?
    }

    /// The JSON answer for this error.
    public var response: Response {
        var response = Response.json(Payload(error: code, message: message, detail: detail), status: status)
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { response.addHeader(name, value) }
        return response
    }
}
