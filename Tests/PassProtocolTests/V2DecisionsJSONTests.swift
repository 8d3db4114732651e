import Foundation
import PassProtocol
import Testing

/// The hand-written JSON of a decisions answer (the v2 hot path) decodes back to the very answer, whatever its
/// strings hold and whichever optional fields are there: a property test over generated answers.
struct V2DecisionsJSONTests {
    static let awkward = ["news", "", "a\"b", "back\\slash", "line\nbreak", "tab\t", "ctrl\u{1}", "é-ü", "🎬", "<rss><title>X</title></rss>", "/slash/"]

    @Test func handWrittenDecisionsDecodeBackToTheSameAnswer() throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<300 {
            let count = Int.random(in: 0...4, using: &generator)
            let decisions = (0..<count).map { index -> V2.Decision in
                let pick = { Self.awkward.randomElement(using: &generator)! }
                var decision = V2.Decision(
                    resource: pick(), serviceProvider: pick(), mvpd: pick(), source: ["mvpd", "degradation", "temppass"][index % 3],
                    authorized: Bool.random(using: &generator))
                if Bool.random(using: &generator) {
                    decision.token = V2.Token(notBefore: Int64.random(in: 0...Int64(1) << 50, using: &generator),
                        notAfter: Int64.random(in: 0...Int64(1) << 50, using: &generator), serializedToken: pick())
                }
                if Bool.random(using: &generator) { decision.error = EnhancedError(.authorizationDeniedByMVPD, details: pick()) }
                if Bool.random(using: &generator) { decision.notBefore = Int64.random(in: -1000...Int64(1) << 50, using: &generator) }
                if Bool.random(using: &generator) { decision.notAfter = Int64.random(in: 0...Int64(1) << 50, using: &generator) }
                return decision
            }
            let answer = V2.Decisions(decisions: decisions)
            let decoded = try JSONDecoder().decode(V2.Decisions.self, from: Data(answer.jsonBytes()))
            #expect(decoded == answer, "round \(round): \(String(decoding: answer.jsonBytes(), as: UTF8.self))")
            if decoded != answer { break }
        }
    }
}
