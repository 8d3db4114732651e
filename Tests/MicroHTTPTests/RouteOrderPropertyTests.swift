import Foundation
import MicroHTTP
import PassTestSupport
import Testing

/// The router tries only the routes of a path's shape (its segment count, and the routes ending in `{name...}`):
/// whatever it answers must be what trying every route in registration order answers.
struct RouteOrderPropertyTests {
    enum Piece { case literal(String), capture, rest }

    /// The reference: every route in order, the first whose shape and method fit wins; a shape fitting with other
    /// methods only is 405 with those methods; nothing is 404.
    static func expected(_ routes: [(method: String, pieces: [Piece])], method: String, path: [String]) -> (status: Int, body: String) {
        var allowed: [String] = []
        for (index, route) in routes.enumerated() {
            let fits: Bool
            if case .rest? = route.pieces.last {
                fits = path.count >= route.pieces.count && zip(route.pieces, path).allSatisfy { piece, segment in
                    if case .literal(let literal) = piece { return literal == segment }
                    return true
                }
            } else {
                fits = path.count == route.pieces.count && zip(route.pieces, path).allSatisfy { piece, segment in
                    if case .literal(let literal) = piece { return literal == segment }
                    return true
                }
            }
            guard fits else { continue }
            if route.method == method { return (200, "\(index)") }
            allowed.append(route.method)
        }
        return allowed.isEmpty ? (404, "") : (405, Array(Set(allowed)).sorted().joined(separator: ", "))
    }

    @Test("any set of routes and any path: the first route in registration order answers, as a scan of all of them would")
    func bucketedMatchingKeepsRegistrationOrder() throws {
        let words = ["api", "v1", "v2", "a", "b", "x"]
        for seed in UInt64(1)...200 {
            var random = SeededRandom(seed: seed)
            var router = Router()
            var routes: [(method: String, pieces: [Piece])] = []
            for index in 0..<Int.random(in: 1...25, using: &random) {
                var pieces: [Piece] = []
                for _ in 0..<Int.random(in: 0...4, using: &random) {
                    pieces.append(Bool.random(using: &random) ? .literal(words.randomElement(using: &random)!) : .capture)
                }
                if Int.random(in: 0..<5, using: &random) == 0 { pieces.append(.rest) }
                let method = ["GET", "POST"].randomElement(using: &random)!
                var names = 0
                let pattern = "/" + pieces.map { piece -> String in
                    names += 1
                    switch piece {
                    case .literal(let literal): return literal
                    case .capture: return "{p\(names)}"
                    case .rest: return "{rest\(names)...}"
                    }
                }.joined(separator: "/")
                router.on(method, pattern, inline: { _ in .text("\(index)") })
                routes.append((method, pieces))
            }
            for _ in 0..<40 {
                let path = (0..<Int.random(in: 0...6, using: &random)).map { _ in words.randomElement(using: &random)! }
                let method = ["GET", "POST"].randomElement(using: &random)!
                let request = Request(method: method, path: "/" + path.joined(separator: "/"), queryItems: [], headers: [],
                    body: Data(), remoteAddress: "127.0.0.1")
                let want = Self.expected(routes, method: method, path: path)
                let answer = try #require(router.respondInline(to: request), "seed \(seed)")
                #expect(Int(answer.status.code) == want.status, "seed \(seed): \(method) \(request.path)")
                if want.status == 200 {
                    #expect(String(decoding: answer.bodyData, as: UTF8.self) == want.body, "seed \(seed): \(method) \(request.path)")
                } else if want.status == 405 {
                    #expect(answer.headers.first { $0.name == "Allow" }?.value == want.body, "seed \(seed): \(method) \(request.path)")
                }
            }
        }
    }
}
