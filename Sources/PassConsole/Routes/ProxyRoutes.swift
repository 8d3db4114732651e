import Foundation
import MicroHTTP
import PassProxy

/// The recording proxy the console runs (`passconsole serve --proxy-upstream URL`): where it listens, where it
/// forwards, its rules (set here, by operators) and its local CA's certificate for devices to trust.
struct ProxyAttachment: Sendable {
    let proxy: RecordingProxy
    /// Where apps send their requests (`https://127.0.0.1:8443`).
    let url: String
}

extension Console {
    struct ProxyView: Encodable {
        var url: String
        var upstream: String
        var rules: [ProxyRule]
        /// Each rule in words, as the health card names it.
        var ruleWords: [String]
        /// Where a device downloads the local CA's certificate, when the proxy's certificate came from one.
        var caCertificateURL: String?
    }

    static func addProxyRoutes(to router: inout Router, _ box: ConsoleBox) {
        router.get("/api/proxy") { _ in
            let attachment = try box.get().proxyAttachment()
            return .api(view(attachment))
        }
        router.put("/api/proxy/rules") { request in
            let console = try box.get()
            let attachment = try console.proxyAttachment()
            struct Body: Decodable { var rules: [ProxyRule] }
            let body = try request.decodeAPI(Body.self)
            try attachment.proxy.rules.replace(with: body.rules)
            let words = body.rules.map(\.words)
            try await console.history.audit("proxy-rules",
                detail: words.isEmpty ? "Removed the proxy's rules" : "Set the proxy's rules: " + words.joined(separator: "; "),
                by: console.actor(request))
            return .api(view(attachment))
        }
    }

    func proxyAttachment() throws(HTTPError) -> ProxyAttachment {
        guard let attachment = attachedProxy else {
            throw HTTPError(.notFound, code: "no_proxy",
                message: "This console runs no recording proxy: start it with passconsole serve --proxy-upstream URL.")
        }
        return attachment
    }

    static func view(_ attachment: ProxyAttachment) -> ProxyView {
        let rules = attachment.proxy.rules.all
        return ProxyView(
            url: attachment.url, upstream: attachment.proxy.upstreamURL.absoluteString, rules: rules, ruleWords: rules.map(\.words),
            caCertificateURL: attachment.proxy.offersCACertificate ? attachment.url + "/_proxy/ca.pem" : nil)
    }
}
