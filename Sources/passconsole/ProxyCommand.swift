import ArgumentParser
import Foundation
import MicroHTTP
import PassEvents
import PassProxy

/// `passconsole proxy`: a recording proxy in front of one real entitlement service.
struct ProxyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proxy",
        abstract: "Forward every request to one entitlement service and record each exchange in a console.",
        discussion: """
            Point an app's service URL (setRequestor's serviceProviders, or a host name) at the proxy to see a real app \
            on a real device in the console. The upstream is fixed: this is never an open proxy. Its controls \
            (GET|PUT /_proxy/rules, GET /_proxy/ca.pem) answer loopback, or the access token in PASSCONSOLE_TOKEN.
            """)

    @Option(help: "The one service every request goes to, e.g. https://api.auth.adobe.com or http://127.0.0.1:8081.")
    var upstream: String
    @Option(help: "Port (0 picks a free one).") var port: UInt16 = 8443
    @Option(help: "Address to listen on. Anything but loopback requires an access token (PASSCONSOLE_TOKEN).")
    var host = "127.0.0.1"
    @Option(help: "Send each recorded exchange to this console (its base URL; POST /api/ingest).")
    var reportTo: String?
    @Option(help: "Serve HTTPS with this certificate chain (PEM); with --tls-key.") var tlsCert: String?
    @Option(help: "The private key (PEM) of --tls-cert.") var tlsKey: String?
    @Option(help: ArgumentHelp(
        "Serve HTTPS with a certificate from a local CA kept in this folder (made on first use).",
        discussion: "Devices trust the proxy once they trust the CA: download it from GET /_proxy/ca.pem."))
    var localCa: String?
    @Option(help: "Host names and addresses the local CA's certificate names (default: the listen address, localhost, 127.0.0.1).")
    var tlsName: [String] = []
    @Option(help: "Rules to start with: a JSON file {\"rules\": [{\"path\": \"authorize\", \"status\": 503}, …]}.")
    var rules: String?
    @Option(help: "Seconds the upstream may take to answer (then 504).") var timeout: Double = 15

    func validate() throws {
        guard let url = URL(string: upstream), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
            throw ValidationError("--upstream wants the service's base URL, such as https://api.auth.adobe.com; got '\(upstream)'.")
        }
        guard (1...600).contains(timeout) else { throw ValidationError("--timeout must be between 1 and 600 seconds.") }
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together.") }
        if tlsCert != nil, localCa != nil { throw ValidationError("Give --tls-cert/--tls-key or --local-ca, not both.") }
    }

    func run() async throws {
        let logger = Bootstrap.logger("proxy")
        let token = ProcessInfo.processInfo.environment["PASSCONSOLE_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        if !LocalAddresses.isLoopback(host), token == nil {
            throw ValidationError("Listening on \(host) needs an access token for the proxy's controls: set PASSCONSOLE_TOKEN.")
        }
        let reporter = try reportTo.map(Bootstrap.reporter(to:))
        var configuration = HTTPServerConfiguration(
            host: host, port: port, threadPoolSize: ProcessInfo.processInfo.activeProcessorCount, maxBodySize: 4 << 20)
        var caPEM: String?
        if let tlsCert, let tlsKey {
            guard let chain = try? String(contentsOfFile: tlsCert, encoding: .utf8), let key = try? String(contentsOfFile: tlsKey, encoding: .utf8) else {
                throw ValidationError("Cannot read --tls-cert \(tlsCert) or --tls-key \(tlsKey).")
            }
            configuration.tls = TLSIdentity(privateKeyPEM: key, certificateChainPEM: chain)
        } else if let localCa {
            let ca = try LocalCA.loadOrCreate(in: URL(fileURLWithPath: localCa))
            let names = tlsName.isEmpty ? Array(Set([host, "localhost", "127.0.0.1"])).sorted() : tlsName
            configuration.tls = try ca.issue(hosts: names)
            caPEM = ca.certificatePEM
        }
        let ruleSet = ProxyRules()
        if let rules {
            struct File: Decodable { var rules: [ProxyRule] }
            guard let data = FileManager.default.contents(atPath: rules), let file = try? JSONDecoder().decode(File.self, from: data) else {
                throw ValidationError("--rules \(rules) is not a JSON file {\"rules\": [...]}.")
            }
            do { try ruleSet.replace(with: file.rules) } catch { throw ValidationError("--rules \(rules): \(error.message)") }
        }
        let proxy = RecordingProxy(
            upstream: URL(string: upstream)!, recording: reporter, rules: ruleSet, accessToken: token, caCertificatePEM: caPEM,
            timeout: timeout)
        let server = HTTPServer(configuration: configuration, responder: proxy, logger: logger)
        do { try server.start() } catch {
            throw ValidationError("\(error) Is another program using port \(port)? Pick another with --port.")
        }
        print("Recording proxy on \(server.baseURL) → \(upstream)")
        if let reportTo { print("  Recording to:  \(reportTo)") }
        if caPEM != nil { print("  Local CA:      \(server.baseURL)/_proxy/ca.pem (trust it on the device)") }
        print("  Rules:         \(server.baseURL)/_proxy/rules (GET, PUT)")
        await Bootstrap.waitForTermination()
        await server.shutdown()
        await reporter?.finish()
    }
}
