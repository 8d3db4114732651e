/// The answer of `preauthorize`, on the SDK path (`POST {sp}/preauthorize`) and REST v1
/// (`GET /api/v1/preauthorize`) alike (spec §5.2.7, §5.4.3 #13).
///
/// JSON `{"resources": [{"id", "authorized", "error"?}]}`; XML
/// `<resources><resource><id>X</id><authorized>true</authorized></resource>…</resources>`, with `id` and
/// `authorized` as the first two children because the Android parser reads them by position.
public struct PreauthorizationResponse: RESTPayload {
    /// One resource's decision.
    public struct Decision: Codable, Sendable, Equatable {
        /// The resource ID as asked.
        public var id: String
        /// Whether the user may view it. A hint for the UI, never a substitute for authorization.
        public var authorized: Bool
        /// Why not, when the backend says; omitted when `nil`.
        public var error: RESTError?

        /// Creates a decision.
        public init(id: String, authorized: Bool, error: RESTError? = nil) {
            self.id = id
            self.authorized = authorized
            self.error = error
        }
    }

    /// The decisions, in the order the resources were asked.
    public var resources: [Decision]

    /// Creates an answer.
    public init(resources: [Decision]) {
        self.resources = resources
    }

    /// The IDs of the authorized resources, in order: what `preauthorizedResources:` reports.
    public var authorizedIDs: [String] {
        resources.filter(\.authorized).map(\.id)
    }

    /// The compact `<resources>` document.
    public func xml() -> String {
        XMLWriter.render { xml in
            xml.element("resources") { xml in
                for decision in resources {
                    xml.element("resource") { xml in
                        xml.element("id", decision.id)
                        xml.element("authorized", String(decision.authorized))
                        if let error = decision.error { xml.restError(error) }
                    }
                }
            }
        }
    }

    /// Reads the `<resources>` document.
    ///
    /// - Throws: ``PayloadFormatError`` when the root is not `<resources>` or a resource lacks `id`.
    public static func parse(xml: String) throws(PayloadFormatError) -> PreauthorizationResponse {
        let root = try XMLNode.parse(xml)
        guard root.name == "resources" else {
            throw PayloadFormatError("expected a <resources> document, found <\(root.name)>")
        }
        var decisions: [Decision] = []
        for node in root.children("resource") {
            guard let id = node.text(of: "id") else { throw PayloadFormatError("a <resource> has no <id>") }
            decisions.append(
                Decision(
                    id: id,
                    authorized: node.text(of: "authorized")?.lowercased() == "true",
                    error: node.child("error").map(RESTError.init(node:))
                )
            )
        }
        return PreauthorizationResponse(resources: decisions)
    }
}
