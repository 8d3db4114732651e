import Foundation

extension SDKResponses {
    /// The authN token string from a `sessionDevice` answer, unescaped and ready for ``SignedToken/parse(_:)``.
    ///
    /// - Throws: ``SDKResponseError/denied(details:)`` for an `<error>` answer,
    ///   ``SDKResponseError/pendingLogout`` for `<pendingLogout>`, ``SDKResponseError/malformed(_:)`` otherwise.
    public static func parseAuthnToken(_ xml: String) throws(SDKResponseError) -> String {
        try token("authnToken", in: xml).token
    }

    /// The authN token and the user-metadata JSON text of a `sessionDevice` answer, read in one parse.
    ///
    /// - Throws: As ``parseAuthnToken(_:)``.
    public static func parseAuthnAnswer(_ xml: String) throws(SDKResponseError) -> (token: String, userMeta: String?) {
        let (token, root) = try token("authnToken", in: xml)
        return (token, root?.first("userMeta")?.text)
    }

    /// The authZ token string from an `authorizeDevice` answer, unescaped.
    ///
    /// - Throws: As ``parseAuthnToken(_:)``.
    public static func parseAuthzToken(_ xml: String) throws(SDKResponseError) -> String {
        try token("authzToken", in: xml).token
    }

    /// The user-metadata JSON text of a token answer, or `nil` when it has none or is not XML.
    public static func parseUserMeta(_ xml: String) -> String? {
        guard let root = try? XMLNode.parse(xml) else { return nil }
        return root.first("userMeta")?.text
    }

    /// The `details` of an `<error>` answer (`""` when it has none), or `nil` when the answer is not an error.
    public static func parseError(_ xml: String) -> String? {
        guard let root = try? XMLNode.parse(xml), root.name == "error" else { return nil }
        return root.text(of: "details") ?? root.text(of: "message") ?? ""
    }

    /// The decisions of a `preauthorize` answer.
    ///
    /// - Throws: ``SDKResponseError/denied(details:)`` for an `<error>` answer, ``SDKResponseError/malformed(_:)``
    ///   when it is not a `<resources>` document.
    public static func parsePreauthorize(_ xml: String) throws(SDKResponseError) -> PreauthorizationResponse {
        if let details = parseError(xml) { throw .denied(details: details) }
        do {
            return try PreauthorizationResponse.parse(xml: xml)
        } catch {
            throw .malformed(error.reason)
        }
    }

    /// The token in `element` and the parsed answer (nil when the answer was the bare token).
    private static func token(_ element: String, in xml: String) throws(SDKResponseError) -> (token: String, root: XMLNode?) {
        let trimmed = XMLWhitespace.trimmed(xml)
        // Tolerate a bare token string: some variants answer with the token itself.
        if trimmed.hasPrefix("<signatureInfo>") { return (trimmed, nil) }
        let root: XMLNode
        do {
            root = try XMLNode.parse(trimmed)
        } catch {
            throw .malformed(error.reason)
        }
        if root.name == "error" { throw .denied(details: root.text(of: "details") ?? "") }
        if root.first("pendingLogout") != nil { throw .pendingLogout }
        guard let token = root.first(element)?.text, !token.isEmpty else {
            throw .malformed("no <\(element)> element in <\(root.name)>")
        }
        return (token, root)
    }
}

extension XMLNode {
    /// This node or its first descendant named `name`, depth first.
    func first(_ name: String) -> XMLNode? {
        if self.name == name { return self }
        for child in children {
            if let found = child.first(name) { return found }
        }
        return nil
    }
}
