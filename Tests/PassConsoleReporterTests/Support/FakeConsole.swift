import Foundation
import Locking
import MicroHTTP
import PassTestSupport

/// A stand-in for the console's `POST /api/ingest` that answers from a script — a 500, a 400 with the console's JSON
/// error, a 429 — and then accepts everything, recording each request as it came.
final class FakeConsole: HTTPResponder, Sendable {
    /// One scripted answer.
    struct Answer: Sendable {
        var status: Int
        var json: String
        var headers: [(name: String, value: String)] = []

        static func error(_ status: Int, _ code: String, _ message: String) -> Answer {
            Answer(status: status, json: #"{"error":"\#(code)","message":"\#(message)"}"#)
        }
    }

    /// One request as it arrived.
    struct Received: Sendable {
        var lines: [String]
        var dropped: String?
        var authorization: String?
        var contentType: String?
        var status: Int
        var at: ContinuousClock.Instant
    }

    private let script: Mutex<[Answer]>
    private let log = Mutex<[Received]>([])

    init(script: [Answer] = []) { self.script = Mutex(script) }

    var received: [Received] { log.withLock { $0 } }
    /// The lines of every request it accepted, in order.
    var acceptedLines: [String] { received.filter { $0.status == 200 }.flatMap(\.lines) }

    func respond(to request: Request) async -> Response {
        guard request.method == "POST", request.path == "/api/ingest" else { return .text("not here", status: .notFound) }
        let answer = script.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        let lines = String(decoding: request.body, as: UTF8.self).split(separator: "\n").map(String.init)
        log.withLock {
            $0.append(Received(lines: lines, dropped: request.header("X-PassConsole-Dropped"),
                authorization: request.header("Authorization"), contentType: request.header("Content-Type"),
                status: answer?.status ?? 200, at: .now))
        }
        guard let answer else {
            return .json(data: Data(#"{"accepted":\#(lines.count),"duplicates":0,"rejected":[]}"#.utf8))
        }
        var response = Response.json(data: Data(answer.json.utf8), status: HTTPStatus(answer.status))
        for header in answer.headers { response.addHeader(header.name, header.value) }
        return response
    }

    /// Runs `body` with the fake console listening on `port` (0: any free one).
    static func with(script: [Answer] = [], port: UInt16 = 0, _ body: (FakeConsole, URL) async throws -> Void) async throws {
        let fake = FakeConsole(script: script)
        try await TestServer.with(fake, configuration: .init(port: port)) { server, _ in
            try await body(fake, URL(string: server.baseURL)!)
        }
    }
}
