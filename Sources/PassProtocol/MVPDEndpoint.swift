/// The paths of an MVPD's own pages (its login, logout and platform sign-in), which the stand-in backend serves under
/// `/mvpd/{mvpd}/`. The SDK never builds these: the backend hands it the login and logout URLs; the platform (Apple
/// TV Provider settings, or the simulator's ``platformSignIn`` call) posts to the sign-in one.
public enum MVPDEndpoint: String, CaseIterable, Sendable {
    /// `GET` the login form, `POST` the credentials (field names per MVPD: `username`/`password`,
    /// `j_username`/`j_password`, `IDToken1`/`IDToken2`, …) → the MVPD's answer to the SP (or its intermediate page).
    case login
    /// `POST` `SAMLRequest` + `RelayState` (the HTTP-POST binding's single-sign-on endpoint) → the login form.
    case samlSSO = "saml/sso"
    /// `GET` (meta refresh) or `POST` (the "Resume" button) `login=ID`: after an intermediate page, the MVPD's
    /// answer to the SP.
    case resume
    /// `GET` `response_type=code&client_id&redirect_uri&state` (an OAuth MVPD's authorization endpoint) → the login
    /// form; signing in ends at `redirect_uri?code=…&state=…`.
    case oauthAuthorize = "oauth/authorize"
    /// `POST` `grant_type=authorization_code&code&redirect_uri&client_id` → `{"access_token", "token_type",
    /// "expires_in", "user_id"}` (an OAuth MVPD's token endpoint; the SP's `oauth2` return redeems codes the same way).
    case oauthToken = "oauth/token"
    /// `GET`: ends the MVPD's session and redirects to `return`.
    case logout
    /// `POST` (`username`, `password`): the device's system account signs in at the MVPD, as Settings → TV Provider
    /// does; answers `{"SAMLResponse": …}`, the signed profile the platform keeps.
    case platformSignIn = "platform-signin"

    /// The router's pattern, `/mvpd/{mvpd}/<page>`.
    public var route: String { "/mvpd/{mvpd}/\(rawValue)" }

    /// The path of this page for one MVPD, `/mvpd/<id>/<page>` (the ID is used as given: MVPD IDs are URL-safe).
    public func path(mvpdID: String) -> String { "/mvpd/\(mvpdID)/\(rawValue)" }
}
