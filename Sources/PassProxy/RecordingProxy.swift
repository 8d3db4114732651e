import DecodingWords
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

    /// Refusals and the proxy's own controls, answered on the server's thread.
    public func respondInline(to request: Request) -> Response? {
        if let refusal = judgeHead(request) { return refusal }
        if request.path.hasPrefix(Self.controlPrefix) { return control(request) }
        return nil
    }

    /// Everything forwarded: rules first, then the upstream, answered from NIO's event loop (no Swift task).
    public func respondLater(to request: Request, reply: @escaping @Sendable (Response) -> Void) -> Bool {
        if let answer = respondInline(to: request) {
            reply(answer)
            return true
        }
        let started = ContinuousClock.now
        guard let rule = rules.first(matching: request) else {
            forward(request, started: started, rule: nil, reply: reply)
            return true
        }
        let act: @Sendable () -> Void = { [self] in
            if rule.drop == true {
                recorder?.record(request, .closeWithoutAnswer, started: started, rule: rule.words,
                    failure: "the proxy's rule dropped the connection without an answer")
                return reply(.closeWithoutAnswer)
            }
            if let status = rule.status {
                let answer = HTTPError(HTTPStatus(status), code: "proxy_rule",
                    message: "The recording proxy's rule “\(rule.words)” answered \(status) instead of the service.").response
                recorder?.record(request, answer, started: started, rule: rule.words)
                return reply(answer)
            }
            forward(request, started: started, rule: rule.words, reply: reply)
        }
        if let delay = rule.delayMs, delay > 0 {
            upstream.client.eventLoopGroup.any().scheduleTask(in: .milliseconds(Int64(delay))) { act() }
        } else {
            act()
        }
        return true
    }

    /// The same answer, awaited (tests, and a responder wrapping this one).
    public func respond(to request: Request) async -> Response {
        await withCheckedContinuation { continuation in
            _ = respondLater(to: request) { continuation.resume(returning: $0) }
        }
    }

    func forward(_ request: Request, started: ContinuousClock.Instant, rule: String?, reply: @escaping @Sendable (Response) -> Void) {
        upstream.forward(request) { [recorder] result in
            let answer: Response
            var acted = rule
            switch result {
            case .success(let response):
                answer = response
            case .failure(let error):
                answer = error.response
                acted = (acted.map { "\($0); " } ?? "") + "upstream failed: \(error.code)"
            }
            recorder?.record(request, answer, started: started, rule: acted)
            reply(answer)
        }
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
                return HTTPError(.badRequest, code: "invalid_body", message: "The rules cannot be read: \(DecodingError.words(error)).").response
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
