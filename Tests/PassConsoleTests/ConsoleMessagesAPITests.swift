import Foundation
import MicroHTTP
import PassTestSupport
import Testing

/// What a person reads when something is not there or not right: an unknown address in a browser, a JSON array
/// offered as a storage file, a body over the size limit.
@Suite(.serialized)
struct ConsoleMessagesAPITests {
    static let browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

    @Test func anUnknownPageInABrowserIsAnHTML404WithALinkHomeWhileAPIAndJSONClientsKeepJSON() async throws {
        try await ConsoleFixture.with { fixture in
            // A browser opening an address nobody serves gets a page that says so and leads back
            let page = await fixture.get("/sessions", headers: [("Host", "127.0.0.1:8080"), ("Accept", Self.browserAccept)])
            #expect(page.status == 404)
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            #expect(page.text.contains("<h1>No such page</h1>") && page.text.contains(#"<a href="/">Open the console</a>"#))
            #expect(page.text.contains("<code>/sessions</code>"))
            #expect(page.header("Content-Security-Policy")?.hasPrefix("default-src 'none'") == true)
            // What it names is escaped, never markup
            let hostile = await fixture.get("/<script>x", headers: [("Host", "127.0.0.1:8080"), ("Accept", "text/html")])
            #expect(hostile.status == 404 && !hostile.text.contains("<script>") && hostile.text.contains("&lt;script&gt;x"))
            // A script asking for JSON, and any API path even from a browser, keep the JSON 404
            let json = await fixture.get("/sessions", headers: [("Host", "127.0.0.1:8080"), ("Accept", "application/json")])
            #expect(json.status == 404 && json.json["error"] as? String != nil)
            for path in ["/api/nope", "/API/nope"] {
                let api = await fixture.get(path, headers: [("Host", "127.0.0.1:8080"), ("Accept", Self.browserAccept)])
                #expect(api.status == 404 && api.header("Content-Type")?.hasPrefix("application/json") == true, "\(path)")
            }
            // The console's own page is still served to browsers
            let home = await fixture.get("/", headers: [("Host", "127.0.0.1:8080"), ("Accept", Self.browserAccept)])
            #expect(home.status == 200 && home.text.contains("<nav"))
        }
    }

    @Test func importingAJSONArraySaysItIsAnArrayAndWhatIsExpected() async throws {
        try await ConsoleFixture.with { fixture in
            let domain = "phone/team:TEAM1234"
            let array = await fixture.post("/api/storage/import?domain=\(domain)&dryRun=true", body: Data(#"[{"version":3}]"#.utf8))
            #expect(array.status == 400 && array.json["error"] as? String == "invalid_import")
            #expect((array.json["message"] as? String)?.hasPrefix("This is a JSON array; expected a storage export object or a device's storage.json.") == true)
            // Text that is not JSON at all still says so
            let text = await fixture.post("/api/storage/import?domain=\(domain)&dryRun=true", body: Data("hello".utf8))
            #expect((text.json["message"] as? String)?.hasPrefix("The file is not JSON") == true)
        }
    }

    @Test func aBodyOverTheImportLimitIsRefusedWithTheLimitInMegabytes() async throws {
        try await ConsoleFixture.with { fixture in
            try fixture.console.start()
            let port = try #require(UInt16(fixture.console.baseURL.split(separator: ":").last ?? ""))
            let connection = try RawConnection(port: port)
            connection.send("POST /api/storage/import?domain=phone/team:TEAM1234 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "X-PassConsole-CSRF: \(fixture.console.csrfToken)\r\nContent-Length: \(17 << 20)\r\n\r\n")
            let text = await connection.read(until: "payload_too_large", timeout: .seconds(5))
            #expect(text.hasPrefix("HTTP/1.1 413"))
            #expect(text.contains("up to 16 MB") && text.contains("Limit: 16 MB, sent: 17 MB"), "\(text)")
            #expect(!text.contains("16777216"))
            // The page reads the same words for its import panel
            #expect(await fixture.get("/api/overview").json["uploadLimit"] as? String == "16 MB")
        }
    }

    @Test func byteCountsReadAsPeopleSayThem() {
        #expect(ByteCount.text(16 << 20) == "16 MB")
        #expect(ByteCount.text(1 << 20) == "1 MB")
        #expect(ByteCount.text(8 * 1024) == "8 KB")
        #expect(ByteCount.text(1_572_864) == "1.5 MB")
        #expect(ByteCount.text(1000) == "1000 bytes")
        #expect(ByteCount.text(1) == "1 byte")
        #expect(ByteCount.text(3 << 30) == "3 GB")
    }
}
