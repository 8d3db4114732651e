import MicroHTTP

/// The Clientless REST API v1 (spec §5.4): registration codes, second-screen login, tokens, logout.
enum RESTRoutes {
    static func register(in router: inout Router, service: BackendService) {
    }
}
