import MicroHTTP

/// The native SDK protocol ("adobe-services", spec §5.2), with and without `/1.0`.
enum SDKRoutes {
    static func register(in router: inout Router, service: BackendService) {
    }
}
