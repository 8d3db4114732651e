import Foundation

/// How an MVPD's sign-in looks from the browser (spec §5.2.2–5.2.3): the protocol between the SP and the MVPD, the
/// names of its login form's fields and an optional page between the password and the return to the SP. Real
/// providers differ in all three, so `Config/demo.json` sets them per MVPD (`"loginPage": {…}`).
public struct MVPDLoginPage: Codable, Sendable, Equatable {
    /// How the browser gets from the SP to the MVPD and back.
    public enum Flow: String, Codable, Sendable, CaseIterable {
        /// `authenticate/saml` answers `302` to the MVPD's form; the MVPD answers `302` to the SAML consumer with
        /// `SAMLResponse` + `RelayState` in the query (the shape the demo had first; it exists in the field).
        case samlRedirect
        /// The SAML HTTP-POST binding: `authenticate/saml` answers a page that auto-posts `SAMLRequest` +
        /// `RelayState` to the MVPD; the MVPD answers a page that auto-posts `SAMLResponse` + `RelayState` to the
        /// consumer (each with a `<noscript>` button for browsers without JavaScript).
        case samlPost
        /// OAuth 2.0 authorization code: `authenticate/saml` answers `302` to the MVPD's authorization endpoint; the
        /// MVPD sends the browser back to `/adobe-services/oauth2?code=…&state=…`, where the SP redeems the code.
        case oauth
    }

    /// A page the MVPD shows after accepting the password, before it answers the SP.
    public enum Intermediate: String, Codable, Sendable, CaseIterable {
        case none
        /// "Signing you in…" with `<meta http-equiv="refresh">`.
        case metaRefresh
        /// "You are signed in" with a *Resume* button the person presses.
        case resume
    }

    public var flow: Flow
    /// The name of the login form's user-name field (`username`, `j_username`, `IDToken1`, `UserName`, …).
    public var usernameField: String
    /// The name of its password field (`password`, `j_password`, `IDToken2`, `UserPassword`, …).
    public var passwordField: String
    public var intermediate: Intermediate

    /// Creates a login page; the defaults are the redirect shape with `username`/`password` and no intermediate page.
    public init(flow: Flow = .samlRedirect, usernameField: String = "username", passwordField: String = "password",
                intermediate: Intermediate = .none) {
        self.flow = flow
        self.usernameField = usernameField
        self.passwordField = passwordField
        self.intermediate = intermediate
    }

    /// Decodes one as `Config/demo.json` writes it; every key may be left out.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        flow = try c.decodeIfPresent(Flow.self, forKey: .flow) ?? .samlRedirect
        usernameField = try c.decodeIfPresent(String.self, forKey: .usernameField) ?? "username"
        passwordField = try c.decodeIfPresent(String.self, forKey: .passwordField) ?? "password"
        intermediate = try c.decodeIfPresent(Intermediate.self, forKey: .intermediate) ?? .none
    }

    /// Form fields the pages use for themselves; a login field cannot take one of these names.
    static let reservedFields: Set<String> = ["login", "action", "SAMLRequest", "SAMLResponse", "RelayState", "code", "state"]

    /// What is wrong with it, in words (empty when usable).
    func problems(mvpd: String) -> [String] {
        var problems: [String] = []
        for (key, name) in [("usernameField", usernameField), ("passwordField", passwordField)] {
            let allowed = !name.isEmpty && name.count <= 64
                && name.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "_-.".unicodeScalars.contains($0) }
            if !allowed { problems.append("MVPD \(mvpd): loginPage.\(key) \"\(name)\" is not a form field name (letters, digits, _ - .)") }
            if Self.reservedFields.contains(name) { problems.append("MVPD \(mvpd): loginPage.\(key) \"\(name)\" is a name the sign-in pages use themselves") }
        }
        if usernameField == passwordField { problems.append("MVPD \(mvpd): loginPage uses \"\(usernameField)\" for both fields") }
        return problems
    }

    /// The shape in a few words, for the console and `passconsole demo`: "SAML POST · j_username/j_password · Resume page".
    public var summary: String {
        let flow = switch flow {
        case .samlRedirect: "SAML redirect"
        case .samlPost: "SAML POST"
        case .oauth: "OAuth"
        }
        let page = switch intermediate {
        case .none: ""
        case .metaRefresh: " · meta-refresh page"
        case .resume: " · Resume page"
        }
        return "\(flow) · \(usernameField)/\(passwordField)\(page)"
    }
}
