/// A REST v1 error body: `{"status": 403, "message": "…", "details": "…"}` (spec §5.4.1).
///
/// Error bodies must be JSON when JSON was asked for: real clients call `r.json()` on errors too.
public struct RESTError: RESTPayload, Error {
    /// The HTTP status, repeated in the body.
    public var status: Int
    /// A short message, e.g. `User not authorized`.
    public var message: String
    /// More detail, e.g. an MVPD's denial text; omitted when `nil`.
    public var details: String?

    /// Creates an error body.
    public init(status: Int, message: String, details: String? = nil) {
        self.status = status
        self.message = message
        self.details = details
    }

    /// `<error><status>403</status><message>…</message><details>…</details></error>`; no `details` when `nil`.
    public func xml() -> String {
        XMLWriter.render { $0.restError(self) }
    }

    /// Reads `<error>` XML, as the SDK gets from a denied `authorizeDevice`.
    ///
    /// Only `details` is certain in SDK answers (spec §5.2.5), so a missing `status` reads as `0` and a
    /// missing `message` as `""`.
    ///
    /// - Throws: ``PayloadFormatError`` when the text is not an `<error>` document.
    public static func parse(xml: String) throws(PayloadFormatError) -> RESTError {
        let root = try XMLNode.parse(xml)
        guard root.name == "error" else {
            throw PayloadFormatError("expected an <error> document, found <\(root.name)>")
        }
        return RESTError(node: root)
    }

    init(node: XMLNode) {
        self.init(
            status: node.text(of: "status").flatMap { Int($0) } ?? 0,
            message: node.text(of: "message") ?? "",
            details: node.text(of: "details")
        )
    }
}

extension XMLWriter {
    /// Writes an `<error>` element.
    mutating func restError(_ error: RESTError) {
        element("error") { xml in
            xml.element("status", String(error.status))
            xml.element("message", error.message)
            xml.optionalElement("details", error.details)
        }
    }
}
