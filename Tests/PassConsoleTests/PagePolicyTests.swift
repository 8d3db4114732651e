import Foundation
import PassTestSupport
import Testing
@testable import PassConsole

/// Issue #27 item 15: every file of the console's page is served with its Content-Security-Policy.
@Suite(.serialized)
struct PagePolicyTests {
    @Test(arguments: ["/", "/index.html", "/app.js", "/lib/dom.js", "/lib/live-worker.js", "/features/events/events-view.js", "/style.css"])
    func thePagesFilesCarryThePolicy(path: String) async throws {
        try await ConsoleFixture.with { fixture in
            try fixture.console.start()
            let client = TestHTTPClient(baseURL: fixture.console.baseURL)
            let answer = try await client.get(path)
            #expect(answer.status == 200)
            let policy = try #require(answer.header("Content-Security-Policy"), "\(path)")
            #expect(policy == PagePolicy.contentSecurityPolicy)
            for directive in ["script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"] {
                #expect(policy.contains(directive))
            }
            #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"))
            // Revalidation (304) keeps it
            if let etag = answer.header("ETag") {
                let again = try await client.get(path, headers: ["If-None-Match": etag])
                #expect(again.status == 304)
                #expect(again.header("Content-Security-Policy") == policy)
            }
        }
    }
}
