import ArgumentParser
import Foundation
import MicroHTTP
import PassBackend

/// `passconsole serve`: the local backend plus the console's web page, both on 127.0.0.1.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Run the console page and the local backend with the demo data.")

    @OptionGroup var options: ConfigOptions
    @Option(help: "Console port on 127.0.0.1.") var port: UInt16 = 8080
    @Option(help: "Backend port on 127.0.0.1.") var backendPort: UInt16 = 8081
    @Option(help: "Folder with the console's static files.") var publicDir = "Public"
    @Option(help: "PEM file with the P-256 key tokens are signed with (default: a new key each run).")
    var signingKey: String?

    func run() async throws {
        let logger = Bootstrap.logger("serve")
        let backend = try Bootstrap.startBackend(
            configPath: options.config, port: backendPort, signingKeyPath: signingKey, logger: logger)
        let demo = try BackendConfiguration.load(path: options.config)
        var router = Router()
        let backendURL = backend.baseURL
        router.get("/api/demo") { _ in .json(DemoInfo(backendURL: backendURL, configuration: demo)) }
        router.mount(StaticFiles(root: publicDir), at: "/")
        let console = HTTPServer(configuration: .init(port: port), responder: router, logger: logger)
        do { try console.start() } catch {
            await backend.shutdown()
            throw ValidationError("\(error) Is another program using port \(port)? Pick another with --port.")
        }
        print("""
            PassConsole is running (Ctrl-C stops it):
              Console:     \(console.baseURL)/
              Backend:     \(backend.baseURL)/adobe-services/1.0/config/REF30
              Activation:  \(backend.baseURL)/activate   (second-screen sign-in)
              Demo data:   swift run passconsole demo
            """)
        await Bootstrap.waitForTermination()
        await console.shutdown()
        await backend.shutdown()
    }
}

/// What the console page shows about the demo set-up.
struct DemoInfo: Encodable {
    var backendURL: String
    var configuration: BackendConfiguration
}
