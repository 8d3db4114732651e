import Foundation
import MicroHTTP
import PassEvents
import PassRecording

/// A recording proxy in front of one real entitlement service (the vendor's staging or production, or this project's
/// backend): every request is forwarded to the configured upstream and each exchange is recorded as an event, decoded
/// as the backend's own record is (``ExchangeRecorder``). Point an app's service URL at it to see a real app on a real
/// device in the console.
///
/// - The upstream is fixed by configuration: a request target in absolute form (`GET http://elsewhere/…`) is refused;
///   it is never an open proxy.
/// - Its own controls live under `/_proxy/` (rules, the local CA's certificate): from loopback, or with the access
///   token (`Authorization: Bearer …`) when one is set; the rest of the paths belong to the upstream.
/// - Rules (``ProxyRule``) hold or answer requests on the way; each exchange a rule acted on carries its words.
public struct RecordingProxy: HTTPResponder {
    public let rules: ProxyRules
    let upstream: UpstreamClient
    let recorder: ExchangeRecorder?
    let accessToken: String?
    /// The local CA's certificate (PEM) offered for download, when the proxy's TLS certificate came from it.
    let caCertificatePEM: String?

    /// - Parameters:
    ///   - upstream: the one service every request goes to (`https://api.auth.adobe.com`, `http://127.0.0.1:8081`).
    ///   - recording: where the recorded exchanges go (a console's history, or a reporter to one); none records nothing.
    ///   - timeout: how long the upstream may take to answer (then 504).
    ///   - maxBodySize: the largest answer passed back (then 502).
    public init(
        upstream: URL, recording: (any EventSink)?, rules: ProxyRules = ProxyRules(), accessToken: String? = nil,
        caCertificatePEM: String? = nil, timeout: TimeInterval = 15, maxBodySize: Int = 16 << 20
    ) {
        // Bounded before it becomes milliseconds (1 ms to 1 hour; a non-number is the default).
        let timeout = timeout.isFinite ? min(max(timeout, 0.001), 3600) : 15
        self.upstream = UpstreamClient(upstream: upstream, timeout: timeout, maxBodySize: max(0, maxBodySize))
        self.recorder = recording.map { ExchangeRecorder(.proxy, sink: $0) }
        self.rules = rules
        self.accessToken = accessToken
        self.caCertificatePEM = caCertificatePEM
    }

    /// The controls' prefix.
    public static let controlPrefix = "/_proxy/"

    /// The one service every request goes to.
    public var upstreamURL: URL { upstream.upstream }
    /// Whether `GET /_proxy/ca.pem` offers a local CA's certificate.
    public var offersCACertificate: Bool { caCertificatePEM != nil }

    public func judgeHead(_ head: Request) -> Response? {
        guard head.path.hasPathPrefix("/") else {
            return HTTPError(.badRequest, code: "absolute_target", message: "This proxy forwards to its one upstream only; send an origin-form target (/path).").response
        }
        if head.path.hasPrefix(Self.controlPrefix), !mayControl(head) {
            return HTTPError(.unauthorized, code: "unauthorized", message: "The proxy's controls want the access token (Authorization: Bearer …) off loopback.").response
        }
        return nil
    }

    func mayControl(_ request: Request) -> Bool {
        if let accessToken, let presented = request.header("Authorization"), presented == "Bearer \(accessToken)" { return true }
        return LocalAddresses.isLoopback(request.remoteAddress)
    }

    public func respond(to request: Request) async -> Response {
        if let refusal = judgeHead(request) { return refusal }
        if request.path.hasPrefix(Self.controlPrefix) { return control(request) }
        let started = ContinuousClock.now
        let reading = ExchangeReading(request, Response())
        var answer: Response
        var acted: String?
        if let rule = rules.first(matching: request, reading: reading) {
            acted = rule.words
            if let delay = rule.delayMs, delay > 0 { try? await Task.sleep(for: .milliseconds(delay)) }
            if rule.drop == true {
                recorder?.record(request, .closeWithoutAnswer, started: started, rule: acted,
                    failure: "the proxy's rule dropped the connection without an answer")
                return .closeWithoutAnswer
            }
            if let status = rule.status {
                answer = HTTPError(HTTPStatus(status), code: "proxy_rule",
                    message: "The recording proxy's rule “\(rule.words)” answered \(status) instead of the service.").response
                recorder?.record(request, answer, started: started, rule: acted)
                return answer
            }
        }
        do {
            answer = try await upstream.forward(request)
        } catch {
            answer = error.response
            acted = acted.map { "\($0); " } ?? ""
            acted = (acted ?? "") + "upstream failed: \(error.code)"
        }
        recorder?.record(request, answer, started: started, rule: acted)
        return answer
    }

    /// `GET|PUT /_proxy/rules`, `GET /_proxy/ca.pem`.
    func control(_ request: Request) -> Response {
        switch (request.method, request.path) {
        case ("GET", "/_proxy/rules"):
            return .json(["rules": rules.all])
        case ("PUT", "/_proxy/rules"):
            struct Body: Decodable { var rules: [ProxyRule] }
            do {
                let body = try request.decodeJSON(Body.self)
                try rules.replace(with: body.rules)
                return .json(["rules": rules.all])
            } catch let error as HTTPError {
                return error.response
            } catch {
                return HTTPError(.badRequest, code: "invalid_body", message: "\(error)").response
            }
        case ("GET", "/_proxy/ca.pem"):
            guard let caCertificatePEM else {
                return HTTPError(.notFound, code: "no_local_ca", message: "This proxy's TLS certificate was given by its user, not made by a local CA.").response
            }
            var response = Response.text(caCertificatePEM, contentType: "application/x-pem-file")
            response.headers.append(("Content-Disposition", "attachment; filename=\"passconsole-proxy-ca.pem\""))
            return response
        default:
            return HTTPError(.notFound, code: "not_found", message: "The proxy's controls are GET|PUT /_proxy/rules and GET /_proxy/ca.pem.").response
        }
    }
}
