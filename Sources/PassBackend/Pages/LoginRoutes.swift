import MicroHTTP

/// The web login: login URL, MVPD login page, SAML consumer, logout chain.
enum LoginRoutes {
    static func register(in router: inout Router, service: BackendService) {
    }
}
