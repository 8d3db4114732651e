import MicroHTTP

/// Fault, clock and session controls for tests and demos.
enum AdminRoutes {
    static func register(in router: inout Router, service: BackendService) {
    }
}
