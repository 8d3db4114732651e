import ArgumentParser
import Foundation
import PassBackend
import PassProtocol

/// `passconsole sign`: the legacy HMAC `Authorization` header a registered app sends to the REST v1 API.
struct SignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Print an Authorization header for a REST v1 call, signed with a registered app's secret.",
        discussion: """
            Example: curl -H "Authorization: $(passconsole sign GET /api/v1/checkauthn)" \\
                       "http://127.0.0.1:8081/api/v1/checkauthn?requestor=REF30&deviceId=dev1&format=json"
            """)

    @OptionGroup var options: ConfigOptions
    @Argument(help: "HTTP method (GET, POST, DELETE).") var method: String
    @Argument(help: "Request path, e.g. /api/v1/authorize.") var path: String
    @Option(help: "Registered app name or public key (default: the first app in the configuration).")
    var app: String?

    func run() throws {
        let configuration = try BackendConfiguration.load(path: options.config)
        guard let registered = configuration.apps.first(where: { app == nil || $0.name == app || $0.publicKey == app })
        else { throw ValidationError("No registered app named \(app ?? "") in \(options.config).") }
        print(LegacyAuthorization.make(
            method: method.uppercased(), requestorID: registered.requestorID, requestURI: path,
            publicKey: registered.publicKey, secret: registered.secret, nonce: UUID().uuidString.lowercased(),
            requestTime: Int64(Date().timeIntervalSince1970 * 1000)))
    }
}
