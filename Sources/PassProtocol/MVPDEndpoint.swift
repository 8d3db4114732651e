/// The paths of an MVPD's own pages (its login, logout and platform sign-in), which the stand-in backend serves under
/// `/mvpd/{mvpd}/`. The SDK never builds these: the backend hands it the login and logout URLs; the platform (Apple
/// TV Provider settings, or the simulator's ``platformSignIn`` call) posts to the sign-in one.
public enum MVPDEndpoint: String, CaseIterable, Sendable {
    /// `GET` the login form, `POST` the credentials (`username`, `password`) → `302` to the SDK's redirect URL.
    case login
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
