import Foundation
import MicroHTTP
import PassEvents
import PassProxy
import PassTestSupport
import Testing

/// Issue #25 part 2: a recording proxy in front of a real service, over HTTPS with a local CA.
@Suite("Recording proxy")
struct RecordingProxyTests {
    @Test("the SDK's sign-in and authorization through the proxy over HTTPS complete; the console shows the exchanges with decoded tokens; a 503 rule on authorize fails the flow and the health card names the rule")
    func theSDKFlowThroughTheProxy() async throws {
        let binary = try #require(BuiltBinary.passconsole, Comment(rawValue: BuiltBinary.missingMessage))
        try await ProxyFixture.with { fixture in
            // The device trusts the CA: the system bundle plus the CA, mounted over the bundle for the flow's process
            // only (a private mount namespace; libcurl reads no other setting on Linux).
            let bundle = fixture.folder.appendingPathComponent("trusted.pem")
            let system = (try? String(contentsOfFile: "/etc/ssl/certs/ca-certificates.crt", encoding: .utf8)) ?? ""
            try Data((system + "\n" + fixture.ca.certificatePEM).utf8).write(to: bundle)
            func flow(_ device: String) async throws -> (code: Int32, output: String) {
                let output = fixture.folder.appendingPathComponent("flow-\(UUID().uuidString.prefix(6)).out")
                let command = "mount --bind '\(bundle.path)' /etc/ssl/certs/ca-certificates.crt && exec '\(binary.path)' flow authorize "
                    + "--backend \(fixture.proxyURL) --mvpd Dish --user carol --password carol123 --resource news "
                    + "--device '\(fixture.folder.appendingPathComponent(device).path)'"
                let process = try ChildProcess("/usr/bin/unshare", ["-m", "sh", "-c", command], directory: BuiltBinary.packageRoot,
                    stdout: .file(output), stderr: .file(output))
                let code = await process.exited()
                return (code, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
            }
            let first = try await flow("device-a")
            try #require(first.code == 0, "the flow through the proxy failed: \(first.output)")
            #expect(first.output.contains(#""callback":"setToken""#))

            let exchanges = try await fixture.served { list in list.contains { $0.served?.token?.hasPrefix("media token") == true } }
            #expect(exchanges.allSatisfy { $0.exchange.served?.recorder == .proxy })
            let media = try #require(exchanges.first { $0.exchange.served?.token?.hasPrefix("media token") == true })
            #expect(media.exchange.served?.token?.contains("for 'news' of REF30 at Dish") == true, "\(media.exchange.served?.token ?? "")")
            #expect(media.event.mvpdID == "Dish" || media.exchange.served?.token?.contains("Dish") == true)
            #expect(exchanges.contains { $0.exchange.served?.token?.hasPrefix("authN token of REF30 at Dish") == true })
            #expect(!exchanges.contains { $0.exchange.responseBody?.contains("<signatureInfo>M") == true }, "token bodies are redacted")

            // The proxy's rule: 503 on authorize. The flow fails, and the session's card names the rule.
            try fixture.proxy.rules.replace(with: [ProxyRule(path: "authorize", status: 503)])
            let second = try await flow("device-b")
            #expect(second.code != 0, "the flow must fail on the injected 503: \(second.output)")
            let refused = try await fixture.served { list in list.contains { $0.served?.rule != nil } }
            let ruled = try #require(refused.first { $0.exchange.served?.rule != nil })
            #expect(ruled.exchange.status == 503)
            let detail = try await fixture.get("/api/sessions/\(ruled.event.sessionID.uuidString)")
            let verdicts = (detail["health"] as? [String: Any])?["verdicts"] as? [[String: Any]] ?? []
            let rule = try #require(verdicts.first { $0["id"] as? String == "proxy_rule" }, "\(verdicts)")
            #expect(rule["rule"] as? String == "answer 503 on authorize")
            #expect((rule["text"] as? String)?.contains("made on purpose") == true)
        }
    }

    @Test("forwarding is faithful: method, path, query, body and headers pass, hop-by-hop headers do not, redirects and cookies come back unfollowed")
    func forwardingIsFaithful() async throws {
        try await ProxyFixture.with { fixture in
            // a redirect of the SDK's sign-in comes back as it is (the client follows it), with the MVPD's cookie
            let answer = try await fixture.curl(
                "/adobe-services/authenticate/saml?requestor_id=REF30&mso_id=Dish&device_id=d1&redirect_url=adobepass%3A%2F%2Fios.app")
            #expect(answer.status == 302, "\(answer)")
            let lines = answer.headers.lowercased()
            #expect(lines.contains("location: /mvpd/dish/login") || lines.contains("location: http"), "\(answer.headers)")
            #expect(!lines.contains("transfer-encoding: chunked\r\ntransfer-encoding"), "one framing, the proxy's own")
            // a form POST with its body, and an error answer passed through unchanged
            let denied = try await fixture.curl(
                "/mvpd/Dish/login", method: "POST", body: "login=no-such-login&username=carol&password=carol123&action=signin",
                headers: ["Content-Type: application/x-www-form-urlencoded", "Connection: close", "TE: trailers"])
            #expect(denied.status == 400 || denied.status == 404, "\(denied)")
            let recorded = try await fixture.served { list in list.contains { $0.url.hasPrefix("/mvpd/Dish/login") } }
            let login = try #require(recorded.first { $0.exchange.url.hasPrefix("/mvpd/Dish/login") }?.exchange)
            #expect(login.parameters["username"] == "carol")
            #expect(login.parameters["password"] == nil, "a password is never recorded")
            #expect(login.method == "POST")
            #expect(login.headers["Connection"] == nil && login.headers["TE"] == nil, "hop-by-hop headers are not the message's")
        }
    }

    @Test("a bad upstream gives the client a clear 502 or 504 with words, and an event")
    func badUpstreams() async throws {
        // unreachable: a port nobody listens on
        try await ProxyFixture.with(upstream: "http://127.0.0.1:1") { fixture in
            let answer = try await fixture.curl("/api/v1/config/REF30")
            #expect(answer.status == 502)
            #expect(answer.body.contains("upstream_unreachable"), "\(answer.body)")
            let recorded = try await fixture.served { $0.contains { $0.status == 502 } }
            #expect(recorded.first?.exchange.served?.rule?.contains("upstream failed: upstream_unreachable") == true)
        }
        // slow and garbage: a raw socket server that never answers, or answers nonsense
        for (behaviour, expected, code) in [("slow", 504, "upstream_timeout"), ("garbage", 502, "upstream_")] {
            let upstream = try RawUpstream(behaviour == "slow" ? .silent : .garbage)
            defer { upstream.stop() }
            try await ProxyFixture.with(upstream: "http://127.0.0.1:\(upstream.port)", timeout: 1) { fixture in
                let answer = try await fixture.curl("/api/v1/config/REF30")
                #expect(answer.status == expected, "\(behaviour): \(answer)")
                #expect(answer.body.contains(code), "\(behaviour): \(answer.body)")
            }
        }
        // TLS failure: an https upstream whose certificate nobody trusts (the proxy itself, with its own CA)
        try await ProxyFixture.with { inner in
            try await ProxyFixture.with(upstream: inner.proxyURL) { fixture in
                let answer = try await fixture.curl("/api/v1/config/REF30")
                #expect(answer.status == 502)
                #expect(answer.body.contains("upstream_tls") || answer.body.contains("upstream_failed"), "\(answer.body)")
            }
        }
    }

    @Test("the console shows the proxy and sets its rules; the change is audited; a bad rule is refused with the reason")
    func rulesFromTheConsole() async throws {
        try await ProxyFixture.with { fixture in
            let shown = try await fixture.get("/api/proxy")
            #expect(shown["upstream"] as? String == fixture.backendURL)
            #expect((shown["caCertificateURL"] as? String)?.hasSuffix("/_proxy/ca.pem") == true)
            let set = try await fixture.send("PUT", "/api/proxy/rules", json: #"{"rules":[{"path":"mediatoken","requestor":"REF30","delayMs":50,"status":504}]}"#)
            #expect(set.status == 200, "\(set.json)")
            #expect(set.json["ruleWords"] as? [String] == ["hold 50 ms answer 504 on mediatoken for REF30"])
            #expect(fixture.proxy.rules.all.count == 1)
            let through = try await fixture.curl("/api/v1/mediatoken?requestor=REF30&deviceId=d&resource=news")
            #expect(through.status == 504)
            #expect(through.body.contains("proxy_rule"))
            let other = try await fixture.curl("/api/v1/mediatoken?requestor=SPORTS1&deviceId=d&resource=news")
            #expect(other.status != 504, "another Programmer's request is forwarded")
            let bad = try await fixture.send("PUT", "/api/proxy/rules", json: #"{"rules":[{"path":"x"}]}"#)
            #expect(bad.status == 400)
            #expect((bad.json["message"] as? String)?.contains("must delay, answer with a status, or drop the request") == true, "\(bad.json)")
            #expect(fixture.proxy.rules.all.count == 1, "a refused change changes nothing")
            let audit = try await fixture.history.auditEntries(limit: 10)
            #expect(audit.contains { $0.action == "proxy-rules" && $0.detail.contains("answer 504 on mediatoken") })
        }
    }

    @Test("a drop rule closes the connection without an answer, and the exchange is recorded with why")
    func aDropRuleAnswersNothing() async throws {
        try await ProxyFixture.with { fixture in
            try fixture.proxy.rules.replace(with: [ProxyRule(path: "checkauthn", drop: true)])
            let answer = try await fixture.curl("/api/v1/checkauthn?requestor=REF30&deviceId=dropped-box")
            #expect(answer.status == 0, "no HTTP answer at all: \(answer)")
            let recorded = try await fixture.served { $0.contains { $0.url.contains("checkauthn") } }
            let exchange = try #require(recorded.first { $0.exchange.url.contains("checkauthn") }?.exchange)
            #expect(exchange.status == nil)
            #expect(exchange.failure?.contains("dropped the connection") == true)
            #expect(exchange.served?.rule == "drop the connection on checkauthn")
            // the rest of the service is untouched
            #expect(try await fixture.curl("/api/v1/config/REF30").status != 0)
        }
    }

    @Test("a hold-only rule delays the request, then forwards it: the service's answer comes back and the exchange names the hold")
    func aHoldRuleDelaysThenForwards() async throws {
        try await ProxyFixture.with { fixture in
            try fixture.proxy.rules.replace(with: [ProxyRule(path: "config", delayMs: 300)])
            let clock = ContinuousClock()
            let sent = clock.now
            let answer = try await fixture.curl("/api/v1/config/REF30")
            #expect(clock.now - sent >= .milliseconds(300), "held before it was forwarded")
            #expect(answer.status == 200, "the service's own answer: \(answer)")
            let recorded = try await fixture.served { $0.contains { $0.url.contains("/config/REF30") } }
            let exchange = try #require(recorded.first { $0.exchange.url.contains("/config/REF30") }?.exchange)
            #expect(exchange.status == 200)
            #expect(exchange.served?.rule == "hold 300 ms then forward on config")
        }
    }

    @Test("never an open proxy, and its controls want loopback or the token; a bad rule is refused with the reason")
    func controlsAndTargets() async throws {
        try await ProxyFixture.with { fixture in
            let absolute = fixture.proxy.judgeHead(Request(method: "GET", path: "http://elsewhere.example/", queryItems: [], headers: [],
                body: Data(), remoteAddress: "127.0.0.1"))
            #expect(absolute?.status.code == 400)
            let remote = fixture.proxy.judgeHead(Request(method: "GET", path: "/_proxy/rules", queryItems: [], headers: [],
                body: Data(), remoteAddress: "192.0.2.7"))
            #expect(remote?.status.code == 401)
            let bad = try await fixture.curl("/_proxy/rules", method: "PUT", body: #"{"rules":[{"path":"authorize","status":200}]}"#)
            #expect(bad.status == 400)
            #expect(bad.body.contains("status must be an error status"), "\(bad.body)")
            let both = try await fixture.curl("/_proxy/rules", method: "PUT", body: #"{"rules":[{"status":503,"drop":true}]}"#)
            #expect(both.status == 400)
            let slow = try await fixture.curl("/_proxy/rules", method: "PUT", body: #"{"rules":[{"delayMs":999999}]}"#)
            #expect(slow.status == 400)
            let ca = try await fixture.curl("/_proxy/ca.pem")
            #expect(ca.status == 200)
            #expect(ca.body.hasPrefix("-----BEGIN CERTIFICATE-----"))
            #expect(fixture.proxy.rules.all.isEmpty, "a refused change changes nothing")
        }
    }
}
