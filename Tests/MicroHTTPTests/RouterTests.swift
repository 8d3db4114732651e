import Foundation
import MicroHTTP
import PassTestSupport
import Testing

struct RouterTests {
    static func router() -> Router {
        var router = Router()
        router.get("/hello/{name}") { request in .text("hello \(request.pathParameters["name"]!)") }
        router.get("/files/{path...}") { request in .text(request.pathParameters["path"]!) }
        router.on("GET", "/inline", inline: { _ in .text("inline") })
        router.get("/query") { request in .text(request.queryAll("r").joined(separator: ",")) }
        router.post("/form") { request in .text("\(request.parameter("user") ?? "-")/\(request.parameter("q") ?? "-")") }
        router.post("/json") { request in
            struct Body: Codable { var n: Int }
            return .json(try request.decodeJSON(Body.self))
        }
        router.get("/fail") { _ in throw CocoaError(.fileNoSuchFile) }
        router.get("/teapot") { _ in throw HTTPError(HTTPStatus(418), code: "teapot", message: "short and stout") }
        return router
    }

    @Test func pathParametersAreCaptured() async throws {
        try await TestServer.with(Self.router()) { _, client async throws in
            #expect(try await client.get("/hello/world").text == "hello world")
            #expect(try await client.get("/files/a/b/c.txt").text == "a/b/c.txt")
            #expect(try await client.get("/inline").text == "inline")
        }
    }

    @Test func repeatedQueryArgumentsKeepOrder() async throws {
        try await TestServer.with(Self.router()) { _, client async throws in
            #expect(try await client.get("/query?r=a&r=b%20c&r=d").text == "a,b c,d")
        }
    }

    @Test func formBodyAndQueryAreMerged() async throws {
        try await TestServer.with(Self.router()) { _, client async throws in
            let result = try await client.post("/form?q=fromquery", form: [("user", "jane doe")])
            #expect(result.text == "jane doe/fromquery")
        }
    }

    @Test func unknownPathIsJSON404() async throws {
        try await TestServer.with(Self.router()) { _, client async throws in
            let result = try await client.get("/nope")
            #expect(result.status == 404)
            #expect(result.json["error"] as? String == "not_found")
            #expect(result.header("content-type") == "application/json")
        }
    }

    @Test func wrongMethodIs405WithAllow() async throws {
        try await TestServer.with(Self.router()) { _, client async throws in
            let result = try await client.delete("/hello/x")
            #expect(result.status == 405)
            #expect(result.header("allow") == "GET")
            #expect(result.json["error"] as? String == "method_not_allowed")
        }
    }

    @Test func invalidJSONIs400WithReason() async throws {
        try await TestServer.with(Self.router()) { _, client async throws in
            let bad = try await client.post("/json", json: Data("{nope".utf8))
            #expect(bad.status == 400)
            #expect(bad.json["error"] as? String == "invalid_json")
            #expect(bad.json["detail"] is String)
            let good = try await client.post("/json", json: Data(#"{"n":3}"#.utf8))
            #expect(good.json["n"] as? Int == 3)
        }
    }

    @Test func thrownErrorsBecomeJSONAndLeakNothing() async throws {
        try await TestServer.with(Self.router()) { _, client async throws in
            let failure = try await client.get("/fail")
            #expect(failure.status == 500)
            #expect(failure.json["error"] as? String == "internal_error")
            #expect(!failure.text.contains("NSCocoaErrorDomain"))
            let teapot = try await client.get("/teapot")
            #expect(teapot.status == 418)
            #expect(teapot.json["message"] as? String == "short and stout")
        }
    }

    @Test func inProcessRespondMatchesLiveAnswer() async {
        let response = await Self.router().respond(to: Request(method: "GET", path: "/hello/there"))
        #expect(String(decoding: response.bodyData, as: UTF8.self) == "hello there")
    }

    @Test func aRouteStartingWithACaptureStillWinsOverTheMountAndOtherPathsReachTheFiles() async throws {
        let (root, _) = try StaticFilesTests.makeRoot()
        var router = Router()
        router.get("/api/ping") { _ in .text("pong") }
        router.get("/{name}/info") { request in .text("info of \(request.pathParameters["name"] ?? "")") }
        router.mount(StaticFiles(root: root), at: "/")
        try await TestServer.with(router) { _, client async throws in
            #expect(try await client.get("/js/info").text == "info of js")
            #expect(try await client.get("/js/app.js").text == "export const x = 1;")
            #expect(try await client.get("/api/ping").text == "pong")
            #expect(try await client.get("/nothing-here").status == 404)
        }
    }

    /// Routes answered through a completion callback (``Router/on(_:_:later:)``): the answer comes from another
    /// thread with no task, errors are JSON like every route's, and the in-process answer is the live one.
    static func laterRouter() -> Router {
        var router = Router()
        router.get("/later/{name}", later: { request, reply in
            guard let name = request.pathParameters["name"], name != "throw" else {
                throw HTTPError(.badRequest, code: "bad_name", message: "No such name.")
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) {
                if name == "fail" { return reply(.failure(HTTPError(HTTPStatus(503), code: "later_failed", message: "The read failed."))) }
                reply(.success(.text("later \(name) \(request.query("q") ?? "")")))
                reply(.success(.text("a second answer is dropped")))
            }
        })
        router.get("/now") { _ in .text("now") }
        return router
    }

    @Test func aCallbackRouteAnswersFromAnotherThreadWithJSONErrorsAndTheSameBytesInProcess() async throws {
        let router = Self.laterRouter()
        try await TestServer.with(router) { _, client async throws in
            // Several at once: each connection gets its own answer.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<20 {
                    group.addTask {
                        let text = try await client.get("/later/n\(i)?q=\(i)").text
                        #expect(text == "later n\(i) \(i)")
                    }
                }
                try await group.waitForAll()
            }
            let thrown = try await client.get("/later/throw")
            #expect(thrown.status == 400 && thrown.json["error"] as? String == "bad_name")
            let failed = try await client.get("/later/fail")
            #expect(failed.status == 503 && failed.json["error"] as? String == "later_failed")
            #expect(failed.header("content-type") == "application/json")
            #expect(try await client.delete("/later/x").status == 405)
            #expect(try await client.get("/now").text == "now")
            // In process (no server): the same answers, awaited.
            let live = try await client.get("/later/same?q=1")
            let inProcess = await router.respond(to: Request(method: "GET", path: "/later/same", queryItems: [("q", "1")]))
            #expect(inProcess.bodyData == live.body)
            #expect(await router.respond(to: Request(method: "GET", path: "/later/throw")).status.code == 400)
        }
        // Only callback routes are started this way.
        #expect(!router.respondLater(to: Request(method: "GET", path: "/now")) { _ in })
        #expect(router.respondInline(to: Request(method: "GET", path: "/later/x")) == nil)
    }
}
