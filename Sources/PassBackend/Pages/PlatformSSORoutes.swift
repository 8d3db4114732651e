import Foundation
import MicroHTTP
import PassProtocol

/// Platform single sign-on (Apple's TV Provider, spec §1.5 step 4, §5.2.7 `/tokens`): the device's system account
/// signs in with the MVPD once, and each app exchanges that sign-in for its own authentication without a login page.
///
/// - `POST /mvpd/{mvpd}/platform-signin` (`username`, `password`): what the system settings do when the user adds
///   their TV provider; answers `{"SAMLResponse": …}`, the signed profile the platform keeps.
/// - `POST {sp}/tokens` (`requestor_id`, `device_id`, `mso_id`, `SAMLResponse`): the SDK's token exchange; creates the
///   session `sessionDevice` then returns (`204`). Only for MVPDs with Apple SSO support.
enum PlatformSSORoutes {
    static let platformLoginID = "platform-sso"

    static func register(in router: inout Router, service: BackendService) {
        router.post(MVPDEndpoint.platformSignIn.route) { request in try platformSignIn(request, service) }
        for sp in SDKRoutes.prefixes {
            router.post("\(sp)/tokens") { request in try exchange(request, service) }
        }
    }

    static func platformSignIn(_ request: Request, _ service: BackendService) throws -> Response {
        let mvpdID = request.pathParameters["mvpd"] ?? ""
        guard let mvpd = service.mvpd(mvpdID) else {
            throw HTTPError(.notFound, code: "unknown_mvpd", message: "No TV provider has the ID \(mvpdID).")
        }
        guard mvpd.appleSSO else {
            throw HTTPError(.badRequest, code: "sso_unsupported", message: "\(mvpd.displayName) does not support platform single sign-on.")
        }
        guard let subscriber = service.subscriber(
            mvpd: mvpdID, username: request.parameter("username") ?? "", password: request.parameter("password") ?? "")
        else {
            throw HTTPError(.unauthorized, code: "invalid_credentials", message: "The username or password is not correct.")
        }
        let assertion = SAMLAssertion.make(loginID: platformLoginID, username: subscriber.username, key: service.assertionKey)
        // When the provider's sign-in ends (epoch milliseconds), as the partner framework reports it: what an app sends
        // as AP-Partner-Framework-Status's expirationDate on REST API v2.
        let expires = EpochMilliseconds.string(service.now().addingTimeInterval(TimeInterval(mvpd.authnTTL)))
        return .json(["SAMLResponse": assertion, "mvpd": mvpdID, "expirationDate": expires])
    }

    static func exchange(_ request: Request, _ service: BackendService) throws -> Response {
        let (requestorID, deviceID) = try SDKRoutes.requireRequestorAndDevice(request, service)
        let mvpdID = try SDKRoutes.required(request, "mso_id")
        let assertion = try SDKRoutes.required(request, "SAMLResponse")
        guard let mvpd = service.mvpd(mvpdID), mvpd.appleSSO, service.integrates(requestorID, mvpdID) else {
            return .xml(SDKResponses.error(details: "\(mvpdID) offers no platform single sign-on for \(requestorID)."), status: .badRequest)
        }
        guard let (loginID, username) = SAMLAssertion.verify(assertion, key: service.assertionKey), loginID == platformLoginID,
            let subscriber = service.configuration.subscribers.first(where: { $0.mvpd == mvpdID && $0.username == username })
        else {
            return .xml(SDKResponses.error(details: "The platform's SAML response is missing, altered or not from \(mvpdID)."), status: .unauthorized)
        }
        let now = service.now()
        let session = AuthSession(
            guid: UUID().uuidString, requestorID: requestorID, mvpdID: mvpdID, deviceID: deviceID, username: subscriber.username,
            userID: subscriber.userID, issued: now, expires: now.addingTimeInterval(TimeInterval(mvpd.authnTTL)), revoked: false,
            appID: nil, tokenSource: "apple")
        service.state.withLock { $0.store(session) }
        return .empty()
    }
}
