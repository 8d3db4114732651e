import Foundation
import Testing

/// `/openapi.json` describes the API that is really there.
@Suite(.serialized)
struct OpenAPITests {
    @Test func everyDocumentedOperationIsRoutedAndTheDocumentIsServed() async throws {
        try await ConsoleFixture.with { fixture in
            let served = await fixture.get("/openapi.json")
            #expect(served.status == 200)
            let paths = try #require(served.json["paths"] as? [String: [String: Any]])
            #expect(paths.count >= 20)
            for (path, operations) in paths {
                for method in operations.keys {
                    let concrete = path.replacingOccurrences(of: "{id}", with: "00000000-0000-0000-0000-000000000000")
                    let answer = method == "get"
                        ? await fixture.get(concrete)
                        : await fixture.send(method.uppercased(), concrete, headers: fixture.pageHeaders + [("Content-Type", "application/json")], body: Data("{}".utf8))
                    #expect(answer.json["error"] as? String != "not_found" || !(answer.json["message"] as? String ?? "").hasPrefix("Nothing is served"),
                        "\(method) \(path) is documented but not routed")
                    #expect(answer.status != 405, "\(method) \(path)")
                }
            }
        }
    }
}
