import Foundation
import MicroHTTP
import PassProtocol

/// Logout through the MVPD (spec §5.2.7): `GET {sp}/logout?mso_id&requestor_id&device_id&redirect_url` ends the
/// device's sessions on the server, `302` to the MVPD's logout page, which `302`s back to `redirect_url` —
/// unless the "logout drops the redirect URL" fault is on, when the chain ends on the MVPD's page.
enum LogoutRoutes {
    static func register(in router: inout Router, service: BackendService) {
        for sp in SDKRoutes.prefixes {
            router.get("\(sp)/logout") { request in try logout(request, service) }
        }
        router.get(MVPDEndpoint.logout.route) { request in mvpdLogout(request, service) }
    }

    static func logout(_ request: Request, _ service: BackendService) throws -> Response {
        let mvpdID = try SDKRoutes.required(request, "mso_id")
        let redirectURL = request.parameter("redirect_url") ?? PassConstants.ADOBEPASS_REDIRECT_URL
        guard service.mvpd(mvpdID) != nil else {
            throw HTTPError(.badRequest, code: "unknown_mvpd", message: "No MVPD has the ID \(mvpdID).")
        }
        if let deviceID = request.parameter("device_id"), !deviceID.isEmpty {
            _ = service.state.withLock { $0.endSessions(deviceID: deviceID) }
        }
        return .redirect(to: "\(MVPDEndpoint.logout.path(mvpdID: mvpdID))?return=\(FormEncoding.escape(redirectURL))")
    }

    static func mvpdLogout(_ request: Request, _ service: BackendService) -> Response {
        let name = service.mvpd(request.pathParameters["mvpd"] ?? "")?.displayName ?? "your TV provider"
        guard !service.faults.logoutDropsRedirect, let target = request.parameter("return") else {
            return .html(HTMLPage.page(title: "Signed out", heading: "You are signed out of \(name)",
                body: "<p>You can close this window.</p>"))
        }
        return .redirect(to: target)
    }
}
