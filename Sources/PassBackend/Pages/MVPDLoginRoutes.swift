import Foundation
import MicroHTTP
import PassProtocol

/// The stand-in MVPDs' own sign-in pages (spec §5.2.3), each shaped by the MVPD's ``MVPDLoginPage``:
///
/// - `POST /mvpd/{mvpd}/saml/sso` (HTTP-POST binding) reads `SAMLRequest` + `RelayState` and shows the login form;
/// - `GET /mvpd/{mvpd}/oauth/authorize` (OAuth) checks the SP's client and `state` and shows the login form;
/// - `GET /mvpd/{mvpd}/login?login=ID` shows the form (the redirect shape's entry); `POST` checks the credentials
///   in the MVPD's own field names (`j_username`, `IDToken1`, …), then shows the intermediate page or answers the SP;
/// - `GET|POST /mvpd/{mvpd}/resume` (after the meta refresh or the *Resume* button) answers the SP;
/// - `POST /mvpd/{mvpd}/oauth/token` redeems an authorization code.
///
/// The answer to the SP: a `302` to the SAML consumer with the response in the query (`samlRedirect`), a page that
/// auto-posts `SAMLResponse` + `RelayState` to it (`samlPost`), or a `302` to `/adobe-services/oauth2?code&state`
/// (`oauth`). *Cancel* goes back to the app's redirect URL with `error=user_cancelled` (OAuth: through the SP's
/// return with `error=access_denied`).
enum MVPDLoginRoutes {
    static func register(in router: inout Router, service: BackendService) {
        router.get(MVPDEndpoint.login.route) { request in loginPage(request, service) }
        router.post(MVPDEndpoint.login.route) { request in submitLogin(request, service) }
        router.post(MVPDEndpoint.samlSSO.route) { request in singleSignOn(request, service) }
        router.get(MVPDEndpoint.resume.route) { request in resume(request, service) }
        router.post(MVPDEndpoint.resume.route) { request in resume(request, service) }
        router.get(MVPDEndpoint.oauthAuthorize.route) { request in authorize(request, service) }
        router.post(MVPDEndpoint.oauthToken.route) { request in token(request, service) }
    }

    // MARK: - Entries

    /// The HTTP-POST binding's single-sign-on endpoint: the SP's page posted an `AuthnRequest` and the login it is for.
    static func singleSignOn(_ request: Request, _ service: BackendService) -> Response {
        let mvpdID = request.pathParameters["mvpd"] ?? ""
        let authnRequest: SAMLAuthnRequest
        do {
            authnRequest = try SAMLAuthnRequest.parse(base64: request.parameter("SAMLRequest") ?? "")
        } catch {
            return refusal("invalid_saml_request", "The SAMLRequest is not a SAML AuthnRequest: \(error.reason).")
        }
        guard authnRequest.issuer == SAMLNames.spEntityID, authnRequest.assertionConsumerServiceURL == SDKEndpoint.samlAssertionConsumer
        else {
            return refusal("unknown_service_provider",
                "The AuthnRequest comes from \(authnRequest.issuer) for \(authnRequest.assertionConsumerServiceURL), a service provider this MVPD does not know.")
        }
        guard let relay = request.parameter("RelayState"),
            let login = service.updateLogin(relay, { $0.mvpdRequestID = authnRequest.id }), login.mvpdID == mvpdID
        else { return expired() }
        return form(login, request, service)
    }

    /// An OAuth MVPD's authorization endpoint.
    static func authorize(_ request: Request, _ service: BackendService) -> Response {
        let mvpdID = request.pathParameters["mvpd"] ?? ""
        guard request.parameter("response_type") == "code" else {
            return refusal("unsupported_response_type", "This MVPD answers only response_type=code.")
        }
        guard request.parameter("client_id") == BackendService.oauthClientID,
            request.parameter("redirect_uri") == BackendService.oauthRedirectURI
        else { return refusal("invalid_client", "The client_id or redirect_uri is not one this MVPD registered.") }
        guard let state = request.parameter("state"), let login = service.login(state), login.mvpdID == mvpdID else { return expired() }
        return form(login, request, service)
    }

    /// The login form reached by its link (the redirect shape), or shown again.
    static func loginPage(_ request: Request, _ service: BackendService) -> Response {
        let mvpdID = request.pathParameters["mvpd"] ?? ""
        guard service.mvpd(mvpdID) != nil else { return unknownMVPD(mvpdID) }
        guard let loginID = request.parameter("login"), let login = service.login(loginID), login.mvpdID == mvpdID else {
            return expired()
        }
        return form(login, request, service)
    }

    // MARK: - The form

    static func form(_ login: LoginSession, _ request: Request, _ service: BackendService, message: String? = nil) -> Response {
        guard let mvpd = service.mvpd(login.mvpdID) else { return unknownMVPD(login.mvpdID) }
        if service.faults.refuseEmbeddedBrowsers.contains(mvpd.id), LoginRoutes.isEmbeddedBrowser(request) {
            return .html(HTMLPage.page(title: "Browser not supported", heading: "Browser not supported",
                body: HTMLPage.alert("\(mvpd.displayName) does not allow sign-in from an embedded browser.")),
                status: .forbidden)
        }
        let page = mvpd.loginPage
        let programmer = service.programmer(login.requestorID)?.name ?? login.requestorID
        let user = HTMLPage.escape(page.usernameField)
        let password = HTMLPage.escape(page.passwordField)
        let body = """
            <p class="note">Sign in with your \(HTMLPage.escape(mvpd.displayName)) account to watch on \(HTMLPage.escape(programmer)).</p>
            \(HTMLPage.alert(message))
            <form method="post" action="\(HTMLPage.escape(MVPDEndpoint.login.path(mvpdID: mvpd.id)))">
            <input type="hidden" name="login" value="\(HTMLPage.escape(login.id))">
            <label for="\(user)">Username</label><input id="\(user)" name="\(user)" autocomplete="username" required>
            <label for="\(password)">Password</label><input id="\(password)" name="\(password)" type="password" autocomplete="current-password" required>
            <div class="actions"><button class="primary" type="submit" name="action" value="signin">Sign in</button>
            <button type="submit" name="action" value="cancel" formnovalidate>Cancel</button></div>
            </form>
            """
        return .html(HTMLPage.page(title: "\(mvpd.displayName) sign-in", heading: "\(mvpd.displayName) sign-in", body: body))
    }

    static func submitLogin(_ request: Request, _ service: BackendService) -> Response {
        let mvpdID = request.pathParameters["mvpd"] ?? ""
        guard let mvpd = service.mvpd(mvpdID) else { return unknownMVPD(mvpdID) }
        guard let loginID = request.parameter("login"), let login = service.login(loginID), login.mvpdID == mvpdID else {
            return expired()
        }
        if request.parameter("action") == "cancel" {
            if mvpd.loginPage.flow == .oauth {
                return .redirect(to: "\(BackendService.oauthRedirectURI)?error=access_denied&state=\(FormEncoding.escape(login.id))")
            }
            service.cancelLogin(login)
            return .redirect(to: LoginRoutes.append(login.redirectURL, "error", "user_cancelled"))
        }
        guard let subscriber = service.subscriber(
            mvpd: mvpdID, username: request.parameter(mvpd.loginPage.usernameField) ?? "",
            password: request.parameter(mvpd.loginPage.passwordField) ?? "")
        else {
            return form(login, request, service, message: "The username or password is not correct. Try again.")
        }
        guard let accepted = service.updateLogin(login.id, { $0.signedInAs = subscriber.username }) else { return expired() }
        let resume = MVPDEndpoint.resume.path(mvpdID: mvpdID)
        switch mvpd.loginPage.intermediate {
        case .none:
            return answer(accepted, subscriber, mvpd, service)
        case .metaRefresh:
            return .html(HTMLPage.metaRefresh(title: "Signing you in", message: "Signing you in to \(mvpd.displayName)…",
                to: "\(resume)?login=\(FormEncoding.escape(login.id))"))
        case .resume:
            let body = """
                <p class="ok">Welcome back, \(HTMLPage.escape(subscriber.username)). You are signed in to \(HTMLPage.escape(mvpd.displayName)).</p>
                <form method="post" action="\(HTMLPage.escape(resume))"><input type="hidden" name="login" value="\(HTMLPage.escape(login.id))">
                <div class="actions"><button class="primary" type="submit">Resume</button></div></form>
                """
            return .html(HTMLPage.page(title: "Signed in", heading: "\(mvpd.displayName)", body: body))
        }
    }

    /// After the intermediate page: the MVPD answers the SP for the subscriber it accepted.
    static func resume(_ request: Request, _ service: BackendService) -> Response {
        let mvpdID = request.pathParameters["mvpd"] ?? ""
        guard let mvpd = service.mvpd(mvpdID) else { return unknownMVPD(mvpdID) }
        guard let loginID = request.parameter("login"), let login = service.login(loginID), login.mvpdID == mvpdID,
            let username = login.signedInAs, let subscriber = service.subscriber(mvpd: mvpdID, username: username)
        else { return expired() }
        return answer(login, subscriber, mvpd, service)
    }

    /// The MVPD's answer to the SP, in its flow's shape.
    static func answer(_ login: LoginSession, _ subscriber: Subscriber, _ mvpd: MVPD, _ service: BackendService) -> Response {
        switch mvpd.loginPage.flow {
        case .samlRedirect:
            let response = service.samlResponse(for: login, subscriber: subscriber)
            return .redirect(to: "\(SDKEndpoint.samlAssertionConsumer)?SAMLResponse=\(FormEncoding.escape(response))"
                + "&RelayState=\(FormEncoding.escape(login.id))")
        case .samlPost:
            return .html(HTMLPage.autoPost(
                title: "Returning to \(service.programmer(login.requestorID)?.name ?? login.requestorID)",
                message: "\(mvpd.displayName) signed you in. Returning to the app…", action: SDKEndpoint.samlAssertionConsumer,
                fields: ["SAMLResponse": service.samlResponse(for: login, subscriber: subscriber), "RelayState": login.id]))
        case .oauth:
            let code = service.mintOAuthCode(for: login)
            return .redirect(to: "\(BackendService.oauthRedirectURI)?code=\(code)&state=\(FormEncoding.escape(login.id))")
        }
    }

    /// The OAuth token endpoint: an authorization code for an access token and the subscriber's ID.
    static func token(_ request: Request, _ service: BackendService) -> Response {
        let mvpdID = request.pathParameters["mvpd"] ?? ""
        guard request.parameter("grant_type") == "authorization_code" else {
            return .json(["error": "unsupported_grant_type", "error_description": "Only grant_type=authorization_code is supported."],
                status: .badRequest)
        }
        do {
            let (_, subscriber) = try service.redeemOAuthCode(
                request.parameter("code") ?? "", mvpdID: mvpdID, clientID: request.parameter("client_id") ?? "",
                redirectURI: request.parameter("redirect_uri") ?? "")
            return .json(OAuthToken(
                access_token: UUID().uuidString, token_type: "Bearer", expires_in: 3600, user_id: subscriber.userID))
        } catch {
            return .json(["error": error.code, "error_description": error.message],
                status: error == .invalidClient ? .unauthorized : .badRequest)
        }
    }

    struct OAuthToken: Encodable {
        var access_token: String
        var token_type: String
        var expires_in: Int
        var user_id: String
    }

    // MARK: - Refusals

    static func refusal(_ code: String, _ message: String) -> Response {
        .html(HTMLPage.refusal("Sign-in refused", code: code, message: message), status: .badRequest)
    }

    static func expired() -> Response {
        .html(HTMLPage.page(title: "Link expired", heading: "This sign-in link has expired",
            body: "<p>Start signing in again from the app.</p>"), status: .badRequest)
    }

    static func unknownMVPD(_ mvpdID: String) -> Response {
        .html(HTMLPage.page(title: "Unknown provider", heading: "Unknown TV provider",
            body: HTMLPage.alert("No TV provider has the ID \(mvpdID).")), status: .notFound)
    }
}
