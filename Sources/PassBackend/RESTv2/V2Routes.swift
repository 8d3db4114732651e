import Foundation
import MicroHTTP
import PassProtocol

/// REST API v2, the vendor's current protocol (docs/rest-api-v2.md): configuration, authentication sessions,
/// profiles, decisions and logout, behind DCR bearer tokens with the `api:client:v2` scope. Errors are the enhanced
/// error format (``EnhancedError``).
enum V2Routes {
    static func register(in router: inout Router, service: BackendService) {
        for path in ["/api/v2/{serviceProvider}/configuration", "/api/v2/{serviceProvider}/configuration/"] {
            router.get(path) { request in try configuration(request, service) }
        }
        V2SessionRoutes.register(in: &router, service: service)
        V2ProfileRoutes.register(in: &router, service: service)
        V2DecisionRoutes.register(in: &router, service: service)
        V2LogoutRoutes.register(in: &router, service: service)
        V2PartnerSSORoutes.register(in: &router, service: service)
    }

    static func configuration(_ request: Request, _ service: BackendService) throws(EnhancedError) -> Response {
        let call = try V2Call(request, service)
        let info = try call.deviceInfo
        if request.header("AP-Device-Identifier") != nil { _ = try call.deviceID }
        guard let programmer = service.programmer(call.serviceProvider) else { throw EnhancedError(.invalidParameterServiceProvider) }
        let mvpds = programmer.mvpds.compactMap(service.mvpd).map { mvpd in
            var entry = V2.Configuration.MVPD(
                id: mvpd.id, displayName: mvpd.displayName, logoUrl: mvpd.logoURL, authPerAggregator: mvpd.authPerRequestor,
                passiveAuthnEnabled: mvpd.passiveAuthn)
            if mvpd.appleSSO {
                // Onboarded with the platform's single sign-on (Apple): the partner flow and its picker apply.
                entry.enablePlatformServices = true
                entry.displayInPlatformPicker = true
                entry.boardingStatus = "SUPPORTED"
                entry.platformMappingId = mvpd.id
            }
            return entry
        }
        let temporary = service.configuration.tempPass.filter { $0.requestors.contains(programmer.id) }.map { temp in
            var entry = V2.Configuration.MVPD(id: temp.id, displayName: temp.displayName, logoUrl: "/logos/\(temp.id).svg", authPerAggregator: true)
            entry.isTempPass = true
            return entry
        }
        let requestor = V2.Configuration.Requestor(
            id: programmer.id, name: programmer.name, domains: programmer.domains.map { .init(name: $0) }, mvpds: mvpds + temporary)
        return V2Call.json(V2.Configuration(
            device: info?.primaryHardwareType ?? "unknown", clientType: info?.osName.map(clientType) ?? "html5",
            os: info?.osName ?? "Unknown", requestor: requestor))
    }

    /// The client type the vendor's configuration names for an OS.
    static func clientType(_ osName: String) -> String {
        switch osName.lowercased() {
        case "ios": "iOS"
        case "tvos": "tvOS"
        case "android": "Android"
        default: "html5"
        }
    }
}
