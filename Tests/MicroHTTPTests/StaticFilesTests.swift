import Foundation
@testable import MicroHTTP
import PassTestSupport
import Testing

struct StaticFilesTests {
    /// A served folder with an index, a script, a big file, and a symlink pointing out of the root.
    static func makeRoot() throws -> (root: String, outside: String) {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("static-\(UUID().uuidString)").path
        let root = base + "/public"
        try FileManager.default.createDirectory(atPath: root + "/js", withIntermediateDirectories: true)
        try "<h1>home</h1>".write(toFile: root + "/index.html", atomically: true, encoding: .utf8)
        try "export const x = 1;".write(toFile: root + "/js/app.js", atomically: true, encoding: .utf8)
        try Data(repeating: 7, count: 600_000).write(to: URL(fileURLWithPath: root + "/big.bin"))
        try "secret".write(toFile: base + "/secret.txt", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: root + "/escape.txt", withDestinationPath: base + "/secret.txt")
        return (root, base)
    }

    static func router(_ root: String) -> Router {
        var router = Router()
        router.get("/api/ping") { _ in .text("pong") }
        router.mount(StaticFiles(root: root), at: "/")
        return router
    }

    @Test func servesFilesWithTypesAndIndex() async throws {
        let (root, _) = try Self.makeRoot()
        try await TestServer.with(Self.router(root)) { _, client async throws in
            let index = try await client.get("/")
            #expect(index.text == "<h1>home</h1>")
            #expect(index.header("content-type") == "text/html; charset=utf-8")
            let script = try await client.get("/js/app.js")
            #expect(script.header("content-type") == "text/javascript; charset=utf-8")
            let big = try await client.get("/big.bin")
            #expect(big.body.count == 600_000)
            #expect(try await client.get("/api/ping").text == "pong")
        }
    }

    @Test func revalidationAnswers304() async throws {
        let (root, _) = try Self.makeRoot()
        try await TestServer.with(Self.router(root)) { _, client async throws in
            let first = try await client.get("/js/app.js")
            let etag = try #require(first.header("etag"))
            #expect(first.header("last-modified") != nil)
            let again = try await client.get("/js/app.js", headers: ["If-None-Match": etag])
            #expect(again.status == 304)
            #expect(again.body.isEmpty)
            try "export const x = 2;".write(toFile: root + "/js/app.js", atomically: true, encoding: .utf8)
            let changed = try await client.get("/js/app.js", headers: ["If-None-Match": etag])
            #expect(changed.status == 200)
            #expect(changed.text == "export const x = 2;")
        }
    }

    @Test func withinTheRevalidationWindowTheDiskIsNotAsked() async throws {
        let (root, _) = try Self.makeRoot()
        var router = Router()
        router.mount(StaticFiles(root: root, revalidation: .seconds(3600)), at: "/")
        try await TestServer.with(router) { _, client async throws in
            #expect(try await client.get("/js/app.js").text == "export const x = 1;")
            try "export const x = 22;".write(toFile: root + "/js/app.js", atomically: true, encoding: .utf8)
            // The answer is the one checked last (with the default window of zero, revalidationAnswers304 sees
            // the change at once).
            #expect(try await client.get("/js/app.js").text == "export const x = 1;")
            // A path not asked before is looked up on the disk.
            try "fresh".write(toFile: root + "/js/new.js", atomically: true, encoding: .utf8)
            #expect(try await client.get("/js/new.js").text == "fresh")
        }
    }

    @Test func traversalIsRefused() async throws {
        let (root, _) = try Self.makeRoot()
        try await TestServer.with(Self.router(root)) { server, client async throws in
            // Raw requests: an HTTP library would normalise the dots away before sending.
            for path in ["/../secret.txt", "/js/../../secret.txt", "/%2e%2e/secret.txt", "/js/%2E%2E/%2e%2e/secret.txt"] {
                let connection = try RawConnection(port: server.port)
                connection.send("GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                let answer = await connection.read(until: "\r\n\r\n{")
                #expect(answer.hasPrefix("HTTP/1.1 403") || answer.hasPrefix("HTTP/1.1 404"), "\(path)")
                #expect(!answer.contains("secret\n") && !answer.hasSuffix("secret"), "\(path)")
            }
            let symlink = try await client.get("/escape.txt")
            #expect(symlink.status == 404)
            #expect(symlink.text != "secret")
            #expect(try await client.get("/missing.js").status == 404)
        }
    }

    /// Adds a header to every answer of the router it wraps (as a middleware would).
    struct Tagging: HTTPResponder {
        let router: Router
        func respondInline(to request: Request) -> Response? {
            guard var response = router.respondInline(to: request) else { return nil }
            if request.path.hasSuffix("tagged.js") { response.addHeader("X-Tag", "added") }
            return response
        }
        func respond(to request: Request) async -> Response { respondInline(to: request) ?? Response(status: .notFound) }
    }

    @Test func aCachedFileIsServedFromItsPreparedAnswerUntilItChangesOrSomeoneEditsTheAnswer() async throws {
        let (root, _) = try Self.makeRoot()
        try "export const tag = 1;".write(toFile: root + "/js/tagged.js", atomically: true, encoding: .utf8)
        try await TestServer.with(Tagging(router: Self.router(root))) { server, client async throws in
            // The same bytes and headers on every request, over one kept-alive connection and over new ones.
            var etags: Set<String> = []
            for _ in 0..<20 {
                let answer = try await client.get("/js/app.js")
                #expect(answer.text == "export const x = 1;")
                #expect(answer.header("content-type") == "text/javascript; charset=utf-8")
                etags.insert(answer.header("etag") ?? "")
            }
            #expect(etags.count == 1)
            let connection = try RawConnection(port: server.port)
            connection.send("GET /js/app.js HTTP/1.1\r\nHost: x\r\n\r\nGET /js/app.js HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let both = await connection.read(until: "Connection: close", timeout: .seconds(5))
            #expect(both.hasPrefix("HTTP/1.1 200 OK") && both.contains("export const x = 1;HTTP/1.1 200 OK"))
            // A header added after the file server answered is sent (the prepared answer is not used for it).
            #expect(try await client.get("/js/tagged.js").header("x-tag") == "added")
            #expect(try await client.get("/js/tagged.js").header("x-tag") == "added")
            // A changed file is served new.
            try await Task.sleep(for: .milliseconds(20))
            try "export const x = 3;".write(toFile: root + "/js/app.js", atomically: true, encoding: .utf8)
            #expect(try await client.get("/js/app.js").text == "export const x = 3;")
        }
    }

    @Test func onlyDotSegmentsLeaveTheRoot() {
        for path in ["/..", "/a/../b", "/.", "/a/./b", "/a\\b", "/x\u{0}y", "../"] { #expect(StaticFiles.leavesRoot(path), "\(path)") }
        for path in ["/", "/...", "/.well-known/x", "/a..b", "/js/app.js", ""] { #expect(!StaticFiles.leavesRoot(path), "\(path)") }
    }
}
