import Crypto
import Foundation
import MicroHTTP
import PassProtocol

/// The web login as a web view walks it (spec §5.2.2–5.2.3):
///
/// 1. `GET {sp}/authenticate/saml?requestor_id&mso_id&device_id&redirect_url` → `302` to the MVPD's page (web and
///    second-screen clients send `reg_code` instead of `device_id`: the session opens for the code's device, and the
///    answer sets the `pass_sfp` cookie naming it, ``WebDevice``);
/// 2. `GET /mvpd/{mvpd}/login?login=ID` → an HTML form; `POST` it with `username`/`password` → `302` to the
///    SAML consumer with an assertion (a wrong password shows the form again with a message; *Cancel* goes
///    back to the redirect URL with `error=user_cancelled`);
/// 3. `GET|POST /sp/saml/SAMLAssertionConsumer?SAMLResponse&RelayState` → the session is open → `302` to the
///    app's redirect URL (`adobepass://ios.app` by default), after which the SDK calls `sessionDevice`.
///
/// Passive authentication (`passive=true`, spec §8.5) skips the page when the device already holds a live
/// session of another Programmer with the same per-requestor MVPD.
enum LoginRoutes {
    static func register(in router: inout Router, service: BackendService) {
        for sp in SDKRoutes.prefixes {
            for name in ["authenticate/saml", "authenticate"] {
                router.get("\(sp)/\(name)") { request in
                    try WebDevice.startingSignIn(request, service) { try authenticate(request, service) }
                }
            }
            router.get("\(sp)/completePassiveAuthentication") { _ in
                .html(HTMLPage.page(title: "Signed in", heading: "Passive authentication finished", body: ""))
            }
        }
        router.get(MVPDEndpoint.login.route) { request in loginPage(request, service) }
        router.post(MVPDEndpoint.login.route) { request in submitLogin(request, service) }
        router.get("/sp/saml/SAMLAssertionConsumer") { request in try consume(request, service) }
        router.post("/sp/saml/SAMLAssertionConsumer") { request in try consume(request, service) }
        LogoutRoutes.register(in: &router, service: service)
        PlatformSSORoutes.register(in: &router, service: service)
        LogoRoutes.register(in: &router, service: service)
    }

    static func authenticate(_ request: Request, _ service: BackendService) throws -> Response {
        let requestorID = try SDKRoutes.required(request, "requestor_id")
        let mvpdID = try SDKRoutes.required(request, "mso_id")
        let redirectURL = request.parameter("redirect_url") ?? PassConstants.ADOBEPASS_REDIRECT_URL
        guard service.programmer(requestorID) != nil else {
            throw HTTPError(.badRequest, code: "unknown_requestor", message: "Requestor not found for given ID: \(requestorID)")
        }
        guard let mvpd = service.mvpd(mvpdID), service.integrates(requestorID, mvpdID) else {
            throw HTTPError(.badRequest, code: "unknown_mvpd",
                message: "The MVPD \(mvpdID) is not integrated with \(requestorID).")
        }
        // `device_id` (native SDK) or `reg_code` (web and second-screen clients: the sign-in lands on the code's device).
        let device = try WebDevice.signingIn(request, requestorID: requestorID, service)
        let deviceID = device.deviceID
        if request.parameter("passive") == "true" {
            let adopted = service.passiveAuthentication(requestorID: requestorID, mvpd: mvpd, deviceID: deviceID)
            return .redirect(to: adopted ? redirectURL : append(redirectURL, "error", "passive_authentication_failed"))
        }
        return .redirect(to: service.beginLogin(
            requestorID: requestorID, mvpdID: mvpdID, deviceID: deviceID, redirectURL: redirectURL,
            regcode: device.regcode?.code.code))
    }

    static func loginPage(_ request: Request, _ service: BackendService, message: String? = nil) -> Response {
        let mvpdID = request.pathParameters["mvpd"] ?? ""
        guard let mvpd = service.mvpd(mvpdID) else {
            return .html(HTMLPage.page(title: "Unknown provider", heading: "Unknown TV provider",
                body: HTMLPage.alert("No TV provider has the ID \(mvpdID).")), status: .notFound)
        }
        if service.faults.refuseEmbeddedBrowsers.contains(mvpdID), isEmbeddedBrowser(request) {
            return .html(HTMLPage.page(title: "Browser not supported", heading: "Browser not supported",
                body: HTMLPage.alert("\(mvpd.displayName) does not allow sign-in from an embedded browser.")),
                status: .forbidden)
        }
        guard let loginID = request.parameter("login"), let login = service.login(loginID), login.mvpdID == mvpdID else {
            return .html(HTMLPage.page(title: "Link expired", heading: "This sign-in link has expired",
                body: "<p>Start signing in again from the app.</p>"), status: .badRequest)
        }
        let programmer = service.programmer(login.requestorID)?.name ?? login.requestorID
        let body = """
            <p class="note">Sign in with your \(HTMLPage.escape(mvpd.displayName)) account to watch on \(HTMLPage.escape(programmer)).</p>
            \(HTMLPage.alert(message))
            <form method="post" action="/mvpd/\(HTMLPage.escape(mvpdID))/login">
            <input type="hidden" name="login" value="\(HTMLPage.escape(login.id))">
            <label for="username">Username</label><input id="username" name="username" autocomplete="username" required>
            <label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
            <div class="actions"><button class="primary" type="submit" name="action" value="signin">Sign in</button>
            <button type="submit" name="action" value="cancel" formnovalidate>Cancel</button></div>
            </form>
            """
        return .html(HTMLPage.page(title: "\(mvpd.displayName) sign-in", heading: "\(mvpd.displayName) sign-in", body: body))
    }

    static func submitLogin(_ request: Request, _ service: BackendService) -> Response {
        let mvpdID = request.pathParameters["mvpd"] ?? ""
        guard let loginID = request.parameter("login"), let login = service.login(loginID), login.mvpdID == mvpdID else {
            return loginPage(request, service)
        }
        if request.parameter("action") == "cancel" {
            service.cancelLogin(login)
            return .redirect(to: append(login.redirectURL, "error", "user_cancelled"))
        }
        guard let subscriber = service.subscriber(
            mvpd: mvpdID, username: request.parameter("username") ?? "", password: request.parameter("password") ?? "")
        else {
            var retry = request
            retry.queryItems = [("login", login.id)]
            return loginPage(retry, service, message: "The username or password is not correct. Try again.")
        }
        let assertion = SAMLAssertion.make(loginID: login.id, username: subscriber.username, key: service.assertionKey)
        return .redirect(to: "/sp/saml/SAMLAssertionConsumer?SAMLResponse=\(FormEncoding.escape(assertion))&RelayState=\(login.id)")
    }

    static func consume(_ request: Request, _ service: BackendService) throws -> Response {
        guard let assertion = request.parameter("SAMLResponse"),
            let (loginID, username) = SAMLAssertion.verify(assertion, key: service.assertionKey),
            loginID == request.parameter("RelayState"), let login = service.login(loginID),
            let subscriber = service.configuration.subscribers.first(where: { $0.mvpd == login.mvpdID && $0.username == username })
        else {
            throw HTTPError(.badRequest, code: "invalid_saml_response",
                message: "The SAML response is missing, altered, or belongs to a finished sign-in.")
        }
        service.completeLogin(login, subscriber: subscriber)
        return .redirect(to: login.redirectURL)
    }

    /// Appends a query item to a URL that may already have a query (custom schemes included).
    static func append(_ url: String, _ name: String, _ value: String) -> String {
        url + (url.contains("?") ? "&" : "?") + "\(name)=\(FormEncoding.escape(value))"
    }

    static func isEmbeddedBrowser(_ request: Request) -> Bool {
        let agent = request.header("User-Agent") ?? ""
        return agent.contains("WebView") || agent.contains("PassConsoleHeadless") || !agent.contains("Safari")
    }
}

/// The stand-in MVPD's assertion: the login it answers and the subscriber, signed so it cannot be forged.
enum SAMLAssertion {
    static func make(loginID: String, username: String, key: SymmetricKey) -> String {
        let payload = "\(loginID)|\(username)"
        let mac = Data(HMAC<SHA256>.authenticationCode(for: Data(payload.utf8), using: key)).base64EncodedString()
        return Data("\(payload)|\(mac)".utf8).base64EncodedString()
    }

    static func verify(_ assertion: String, key: SymmetricKey) -> (String, String)? {
        guard let data = Data(base64Encoded: assertion) else { return nil }
        let parts = String(decoding: data, as: UTF8.self).split(separator: "|", omittingEmptySubsequences: false)
        guard parts.count == 3, let mac = Data(base64Encoded: String(parts[2])) else { return nil }
        let payload = Data("\(parts[0])|\(parts[1])".utf8)
        guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: payload, using: key) else { return nil }
        return (String(parts[0]), String(parts[1]))
    }
}
