/// An HTTP status code with its reason phrase.
public struct HTTPStatus: Hashable, Sendable, CustomStringConvertible {
    /// The numeric code.
    public var code: Int

    /// Creates a status from its code.
    public init(_ code: Int) { self.code = code }

    /// `200 OK`.
    public static let ok = HTTPStatus(200)
    /// `201 Created`.
    public static let created = HTTPStatus(201)
    /// `202 Accepted`.
    public static let accepted = HTTPStatus(202)
    /// `204 No Content`.
    public static let noContent = HTTPStatus(204)
    /// `301 Moved Permanently`.
    public static let movedPermanently = HTTPStatus(301)
    /// `302 Found`.
    public static let found = HTTPStatus(302)
    /// `303 See Other`.
    public static let seeOther = HTTPStatus(303)
    /// `304 Not Modified`.
    public static let notModified = HTTPStatus(304)
    /// `400 Bad Request`.
    public static let badRequest = HTTPStatus(400)
    /// `401 Unauthorized`.
    public static let unauthorized = HTTPStatus(401)
    /// `403 Forbidden`.
    public static let forbidden = HTTPStatus(403)
    /// `404 Not Found`.
    public static let notFound = HTTPStatus(404)
    /// `405 Method Not Allowed`.
    public static let methodNotAllowed = HTTPStatus(405)
    /// `409 Conflict`.
    public static let conflict = HTTPStatus(409)
    /// `410 Gone`.
    public static let gone = HTTPStatus(410)
    /// `412 Precondition Failed`.
    public static let preconditionFailed = HTTPStatus(412)
    /// `413 Request Entity Too Large`.
    public static let payloadTooLarge = HTTPStatus(413)
    /// `414 Request-URI Too Long`.
    public static let uriTooLong = HTTPStatus(414)
    /// `415 Unsupported Media Type`.
    public static let unsupportedMediaType = HTTPStatus(415)
    /// `422 Unprocessable Entity`.
    public static let unprocessableEntity = HTTPStatus(422)
    /// `429 Too Many Requests`.
    public static let tooManyRequests = HTTPStatus(429)
    /// `500 Internal Server Error`.
    public static let internalServerError = HTTPStatus(500)
    /// `501 Not Implemented`.
    public static let notImplemented = HTTPStatus(501)
    /// `502 Bad Gateway`.
    public static let badGateway = HTTPStatus(502)
    /// `503 Service Unavailable`.
    public static let serviceUnavailable = HTTPStatus(503)
    /// `507 Insufficient Storage`.
    public static let insufficientStorage = HTTPStatus(507)

    /// The standard reason phrase (`"Not Found"`), or `"Status N"` for codes without one here.
    public var reasonPhrase: String {
        switch code {
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 410: "Gone"
        case 412: "Precondition Failed"
        case 413: "Payload Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 507: "Insufficient Storage"
        default: "Status \(code)"
        }
    }

    /// `404 Not Found`: the code and its reason phrase.
    public var description: String { "\(code) \(reasonPhrase)" }
}
