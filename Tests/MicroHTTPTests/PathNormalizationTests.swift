import Foundation
import MicroHTTP
import PassTestSupport
import Testing

/// Issue #14 item 2: the server normalises the path once; routing and guards see only that spelling.
struct PathNormalizationTests {
    @Test(arguments: [
        ("/api/x", "/api/x"), ("//api//x", "/api/x"), ("/./api/./x", "/api/x"), ("/%61pi/x", "/api/x"),
        ("/a/../api/x", "/api/x"), ("/../../api/x", "/api/x"), ("/api/x/", "/api/x/"), ("/api/x?y=1", "/api/x"),
        ("/%2e%2E/api/%2e/x", "/api/x"), ("/api%2Fx", "/api/x"), ("http://host:1/api/x", "/api/x"), ("/", "/"),
        ("/a%20b", "/a b"), ("/api/x/.", "/api/x/"),
    ])
    func spellingsOfAPathNormaliseToOne(target: String, expected: String) throws {
        #expect(try PathNormalizer.normalize(target).get() == expected)
    }

    @Test(arguments: ["/a%00b", "/a%zz", "/a%4", "/a%0a", "api/x", "/a%ff"])
    func badTargetsAreRefused(target: String) {
        #expect(throws: PathNormalizer.Failure.self) { try PathNormalizer.normalize(target).get() }
    }

    @Test func guardedHeadIgnoresCaseAndTrailingDots() {
        #expect(PathNormalizer.guardedHead(of: "/API./x") == "api")
        #expect(PathNormalizer.guardedHead(of: "/Api") == "api")
        #expect(PathNormalizer.guardedHead(of: "/app.js") == "app.js")
    }

    @Test func theServerRoutesOnTheNormalisedPathAndRefusesBadEncodingsWith400() async throws {
        var router = Router()
        router.get("/api/x") { request in .text(request.path) }
        try await TestServer.with(router) { server, _ async throws in
            for target in ["//api/x", "/./api/x", "/%61pi/x", "/b/../api//x"] {
                let connection = try RawConnection(port: server.port)
                connection.send("GET \(target) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                let text = await connection.read(until: "/api/x", timeout: .seconds(30))
                #expect(text.hasPrefix("HTTP/1.1 200"), "\(target)")
            }
            for target in ["/api%00/x", "/api/%zz"] {
                let connection = try RawConnection(port: server.port)
                connection.send("GET \(target) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                let text = await connection.read(until: "}", timeout: .seconds(30))
                #expect(text.hasPrefix("HTTP/1.1 400"), "\(target)")
                #expect(text.contains("bad_path"))
            }
        }
    }
}
