import Foundation
@testable import MicroHTTP
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
        #expect(PathNormalizer.guardedHead(of: "//API. /x/y") == "api")
        #expect(PathNormalizer.guardedHead(of: "/") == "" && PathNormalizer.guardedHead(of: "") == "")
        #expect(PathNormalizer.guardedHead(of: "/metrics") == "metrics")
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

/// The shortcut for a path already in normal form (every request's path is judged several times) answers exactly what
/// the full pass answers, for targets built from the characters that matter.
struct PathNormalizerShortcutTests {
    @Test func theShortcutAgreesWithTheFullPassOnGeneratedTargets() {
        let pieces = ["/", "/", "a", "api", ".", "..", "...", "%61", "%2e", "%", "?", "#", "x=1", " ", "\u{7F}", "é", "//", "*", "http://h"]
        var random = SeededRandom(seed: 16)
        var shortcuts = 0
        for _ in 0..<20_000 {
            let target = (0..<Int.random(in: 0..<7, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            if let shortcut = PathNormalizer.alreadyNormal(target) {
                shortcuts += 1
                #expect(PathNormalizer.normalizeFully(target) == .success(shortcut), "\(target)")
            }
            #expect(PathNormalizer.normalize(target) == PathNormalizer.normalizeFully(target), "\(target)")
        }
        // The shortcut is taken for ordinary paths (and was tried often enough above to mean something).
        #expect(PathNormalizer.alreadyNormal("/api/events?limit=50") == "/api/events")
        #expect(PathNormalizer.alreadyNormal("/") == "/")
        #expect(shortcuts > 500)
    }
}
