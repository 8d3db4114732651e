import Foundation
import MicroHTTP
import PassProtocol

/// The web login as a web view walks it (spec §5.2.2–5.2.3):
///
/// 1. `GET {sp}/authenticate/saml?requestor_id&mso_id&device_id&redirect_url` → to the MVPD in its flow's shape
///    (``SPSignInRoutes/start(_:_:)``: `302` to its form, a page auto-posting `SAMLRequest` + `RelayState`, or
///    `302` to its OAuth authorization endpoint); web and second-screen clients send `reg_code` instead of
///    `device_id`: the session opens for the code's device, and the answer sets the `pass_sfp` cookie naming it
///    (``WebDevice``);
/// 2. the MVPD's form in its own field names, maybe an intermediate page (``MVPDLoginRoutes``), and its answer to
///    the SP (a wrong password shows the form again with a message; *Cancel* goes back to the redirect URL with
///    `error=user_cancelled`);
/// 3. `GET|POST /sp/saml/SAMLAssertionConsumer` (`SAMLResponse` + `RelayState`) or `GET {sp}/oauth2?code&state` →
///    the session is open → the app's redirect URL (`adobepass://ios.app` by default), after which the SDK calls
///    `sessionDevice`.
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
        MVPDLoginRoutes.register(in: &router, service: service)
        SPSignInRoutes.register(in: &router, service: service)
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
        return SPSignInRoutes.start(service.beginLogin(
            requestorID: requestorID, mvpdID: mvpdID, deviceID: deviceID, redirectURL: redirectURL,
            regcode: device.regcode?.code.code), service)
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
