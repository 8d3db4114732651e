import Foundation
import MicroHTTP
import PassProxy
import PassTestSupport
import Testing

/// Issue #25 part 2 in a real headless Chromium: a person sets the recording proxy's rules from the Network page, and
/// the proxy applies them. Part of the serialized browser suite: one Chromium at a time.
extension ConsoleBrowserTests {
    @Test func theNetworkPageSetsAndRemovesTheRecordingProxysRules() async throws {
        try await withBrowser { fixture, browser in
            // Given a console running a recording proxy in front of the backend
            let proxy = RecordingProxy(upstream: URL(string: fixture.backendURL)!, recording: fixture.console.servedEventSink)
            let server = HTTPServer(configuration: HTTPServerConfiguration(), responder: proxy, logger: TestServer.logger)
            try server.start()
            defer { Task { await server.shutdown(gracePeriod: .seconds(1)) } }
            fixture.console.attachProxy(proxy, url: server.baseURL)
            // When the person opens the proxy's panel on the Network page and adds a rule: 503 on authorize
            try await browser.open(fixture.console.baseURL + "/#/network")
            try await browser.click("#proxy-panel > summary")
            try await browser.waitFor(".proxy-rule-form")
            #expect(try await browser.text("#proxy-panel .facts")?.contains(fixture.backendURL) == true)
            try await browser.type(#".proxy-rule-form input[name="path"]"#, "authorize")
            try await browser.type(#".proxy-rule-form input[name="status"]"#, "503")
            try await browser.click(#"[data-action="add-proxy-rule"]"#)
            // Then the panel lists it in words, and the proxy answers 503 to an authorization
            try await browser.waitUntil("the rule listed", "return document.querySelectorAll('.proxy-rules li').length === 1;")
            #expect(try await browser.text(".proxy-rules li")?.hasPrefix("answer 503 on authorize") == true)
            #expect(proxy.rules.all == [ProxyRule(path: "authorize", status: 503)])
            let client = TestHTTPClient(baseURL: server.baseURL)
            #expect(try await client.get("/api/v1/authorize?requestor=REF30&deviceId=d&resource=news").status == 503)
            // And removing it forwards again
            try await browser.click(#"[data-action="remove-proxy-rule"]"#)
            try await browser.waitUntil("no rules", "return document.querySelectorAll('.proxy-rules li').length === 0;")
            #expect(proxy.rules.all.isEmpty)
        }
    }
}
