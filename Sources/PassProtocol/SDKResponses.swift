/// The XML answers of the native SDK protocol (`adobe-services`, spec §5.2.4–5.2.7), both directions.
///
/// The token answers wrap the whole token string HTML-escaped in `<authnToken>`/`<authzToken>`, optionally
/// followed by `<userMeta>` holding user-metadata JSON. Adobe's root element is not public; PassConsole
/// uses `<result>`, and the parsers look for the token element wherever it is, as real clients do.
///
/// ```swift
/// let answer = SDKResponses.authnToken(signed.serialized, userMeta: nil)
/// // <result><authnToken>&lt;signatureInfo&gt;…</authnToken></result>
/// let token = try SDKResponses.parseAuthnToken(answer)   // == signed.serialized
/// ```
public enum SDKResponses: Sendable {
    /// The root element of the token answers, `result`.
    public static let rootElement = "result"

    /// The `sessionDevice` answer: `<result><authnToken>ESCAPED</authnToken>[<userMeta>JSON</userMeta>]</result>`.
    public static func authnToken(_ serialized: String, userMeta: String?) -> String {
        tokenAnswer("authnToken", serialized, userMeta: userMeta)
    }

    /// The `authorizeDevice` answer: `<result><authzToken>ESCAPED</authzToken>[<userMeta>…</userMeta>]</result>`.
    public static func authzToken(_ serialized: String, userMeta: String?) -> String {
        tokenAnswer("authzToken", serialized, userMeta: userMeta)
    }

    /// A denial or failure: `<error><details>text</details></error>` (spec §5.2.5).
    public static func error(details: String) -> String {
        XMLWriter.render { $0.element("error") { $0.element("details", details) } }
    }

    /// A pending logout (spec §5.2.4, web variant): the session was ended on the server while the client still holds
    /// its tokens; clients wipe their cache and sign in again.
    /// `<result><pendingLogout requestor_id="REF30" mso_id="Dish"/></result>` (the attributes are PassConsole's: the
    /// sources show only the element's name).
    public static func pendingLogout(requestorID: String, mvpdID: String) -> String {
        XMLWriter.render { xml in
            xml.element(rootElement) { xml in
                xml.emptyElement("pendingLogout", attributes: ["requestor_id": requestorID, "mso_id": mvpdID])
            }
        }
    }

    /// The `preauthorize` answer: `<resources><resource><id/><authorized/></resource>…</resources>`.
    public static func preauthorize(_ response: PreauthorizationResponse) -> String {
        response.xml()
    }

    private static func tokenAnswer(_ element: String, _ serialized: String, userMeta: String?) -> String {
        XMLWriter.render { xml in
            xml.element(rootElement) { xml in
                xml.element(element, serialized)
                xml.optionalElement("userMeta", userMeta)
            }
        }
    }
}

/// Why an SDK-protocol answer did not yield what the client asked for.
public enum SDKResponseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The backend refused: an `<error>` document. `details` is its text (may be `""`), shown to the app as
    /// the `tokenRequestFailed` description.
    case denied(details: String)
    /// The web variant's `<pendingLogout>` answer: wipe the cache and retry (spec §5.2.4).
    case pendingLogout
    /// The answer is not XML, or lacks the expected element.
    case malformed(String)

    /// What happened, in plain words.
    public var reason: String {
        switch self {
        case .denied(let details): details.isEmpty ? "The backend denied the request." : details
        case .pendingLogout: "The backend reports a pending logout; clear the stored tokens and retry."
        case .malformed(let detail): "The backend's answer is malformed: \(detail)."
        }
    }

    /// The reason.
    public var description: String { reason }
}
