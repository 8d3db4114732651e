import Foundation
import Logging
import MicroHTTP

/// Starts servers on `127.0.0.1:0` for tests and stops them afterwards.
public enum TestServer {
    /// A logger that drops everything below warnings, for servers under test.
    public static var logger: Logger {
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        return logger
    }

    /// Runs `body` with a started server and a client for it, then shuts the server down.
    public static func with(
        _ responder: any HTTPResponder, configuration: HTTPServerConfiguration = .init(),
        _ body: (HTTPServer, TestHTTPClient) async throws -> Void
    ) async throws {
        var configuration = configuration
        configuration.host = "127.0.0.1"
        let server = HTTPServer(configuration: configuration, responder: responder, logger: logger)
        try server.start()
        let client = TestHTTPClient(baseURL: server.baseURL)
        do {
            try await body(server, client)
            await server.shutdown(gracePeriod: .seconds(2))
        } catch {
            await server.shutdown(gracePeriod: .seconds(2))
            throw error
        }
    }
}
