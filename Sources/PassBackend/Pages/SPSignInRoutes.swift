import Foundation
import MicroHTTP
import PassProtocol

/// The SP's half of a sign-in at an MVPD (spec §5.2.2): how `authenticate/saml` sends the browser to the MVPD, and
/// the two places the MVPD sends it back to — the SAML assertion consumer and the OAuth return — which open the
/// session and send the browser on to the app's `redirect_url`.
enum SPSignInRoutes {
    static func register(in router: inout Router, service: BackendService) {
        router.get(SDKEndpoint.samlAssertionConsumer) { request in consume(request, service) }
        router.post(SDKEndpoint.samlAssertionConsumer) { request in consume(request, service) }
        for sp in SDKRoutes.prefixes {
            router.get(sp + SDKEndpoint.oauth2.rawValue) { request in oauthReturn(request, service) }
        }
    }

    /// The SP's answer to a login URL, in the MVPD's ``MVPDLoginPage/Flow``: a `302` to the MVPD's form, a page that
    /// auto-posts `SAMLRequest` + `RelayState` to it, or a `302` to its OAuth authorization endpoint.
    static func start(_ login: LoginSession, _ service: BackendService) -> Response {
        let mvpd = service.mvpd(login.mvpdID)
        switch mvpd?.loginPage.flow ?? .samlRedirect {
        case .samlRedirect:
            return .redirect(to: "\(MVPDEndpoint.login.path(mvpdID: login.mvpdID))?login=\(login.id)")
        case .samlPost:
            let sso = MVPDEndpoint.samlSSO.path(mvpdID: login.mvpdID)
            let request = SAMLAuthnRequest(id: login.requestID, issueInstant: service.now(), destination: sso, isPassive: login.passive)
            return .html(HTMLPage.autoPost(
                title: "Going to \(mvpd?.displayName ?? login.mvpdID)",
                message: "Taking you to \(mvpd?.displayName ?? login.mvpdID) to sign in…", action: sso,
                fields: ["SAMLRequest": request.base64, "RelayState": login.id]))
        case .oauth:
            return .redirect(to: "\(MVPDEndpoint.oauthAuthorize.path(mvpdID: login.mvpdID))?response_type=code"
                + "&client_id=\(BackendService.oauthClientID)&redirect_uri=\(FormEncoding.escape(BackendService.oauthRedirectURI))"
                + "&scope=openid&state=\(FormEncoding.escape(login.id))")
        }
    }

    /// `/sp/saml/SAMLAssertionConsumer`: checks the MVPD's answer against the sign-in it belongs to, opens the session
    /// and sends the browser to the app — `302` for the redirect shape, a meta-refresh page after a POST. Anything
    /// that does not check out is a `400` page and records nothing.
    static func consume(_ request: Request, _ service: BackendService) -> Response {
        guard let encoded = request.parameter("SAMLResponse"), !encoded.isEmpty else {
            return refusal("missing_saml_response", "The MVPD's answer has no SAMLResponse.")
        }
        guard let relay = request.parameter("RelayState"), !relay.isEmpty else {
            return refusal("missing_relay_state", "The MVPD's answer has no RelayState, so it belongs to no sign-in.")
        }
        guard let login = service.login(relay) else {
            return refusal("unknown_relay_state",
                "The RelayState names no sign-in in progress here: it is forged, or its sign-in already finished or was cancelled.")
        }
        let response: SAMLResponse
        do {
            response = try SAMLResponse.verified(base64: encoded, key: service.assertionKey)
        } catch {
            return refusal("invalid_saml_response", error.description)
        }
        let problem: String? =
            if response.issuer != SAMLNames.mvpdEntityID(login.mvpdID) {
                "The SAMLResponse was issued by \(response.issuer), but this sign-in is with \(login.mvpdID)."
            } else if response.inResponseTo != login.requestID {
                "The SAMLResponse answers the AuthnRequest \(response.inResponseTo), not this sign-in's \(login.requestID)."
            } else if response.destination != SDKEndpoint.samlAssertionConsumer {
                "The SAMLResponse is addressed to \(response.destination), not to this consumer."
            } else if response.statusCode != SAMLNames.success {
                "The MVPD did not sign the subscriber in (status \(response.statusCode))."
            } else if response.notOnOrAfter <= service.now() {
                "The SAMLResponse expired at \(response.notOnOrAfter)."
            } else {
                nil
            }
        if let problem { return refusal("invalid_saml_response", problem) }
        guard let username = response.attributes["username"], let subscriber = service.subscriber(mvpd: login.mvpdID, username: username),
            subscriber.userID == response.nameID
        else {
            return refusal("unknown_subscriber", "The SAMLResponse names a subscriber \(login.mvpdID) does not have.")
        }
        service.completeLogin(login, subscriber: subscriber)
        return sendToApp(login.redirectURL, posted: request.method == "POST")
    }

    /// `/adobe-services/oauth2?code&state`: redeems the OAuth MVPD's code for the sign-in named by `state`.
    static func oauthReturn(_ request: Request, _ service: BackendService) -> Response {
        guard let state = request.parameter("state"), let login = service.login(state),
            service.mvpd(login.mvpdID)?.loginPage.flow == .oauth
        else {
            return refusal("unknown_state",
                "The state names no OAuth sign-in in progress here: it is forged, or its sign-in already finished or was cancelled.")
        }
        if let error = request.parameter("error") {
            service.cancelLogin(login)
            return .redirect(to: LoginRoutes.append(login.redirectURL, "error", error == "access_denied" ? "user_cancelled" : error))
        }
        do {
            let (redeemed, subscriber) = try service.redeemOAuthCode(
                request.parameter("code") ?? "", mvpdID: login.mvpdID, clientID: BackendService.oauthClientID,
                redirectURI: BackendService.oauthRedirectURI)
            guard redeemed.id == login.id else {
                return refusal("invalid_grant", "The authorization code belongs to another sign-in than the state names.")
            }
            service.completeLogin(redeemed, subscriber: subscriber)
            return sendToApp(login.redirectURL, posted: false)
        } catch {
            return refusal(error.code, error.message)
        }
    }

    static func sendToApp(_ redirectURL: String, posted: Bool) -> Response {
        guard posted else { return .redirect(to: redirectURL) }
        return .html(HTMLPage.metaRefresh(title: "Signed in", message: "You are signed in. Returning to the app…", to: redirectURL))
    }

    static func refusal(_ code: String, _ message: String) -> Response {
        var response = Response.html(HTMLPage.refusal("Sign-in not accepted", code: code, message: message), status: .badRequest)
        response.headers.append((name: "Authzf-Error-Code", value: code))
        return response
    }
}
