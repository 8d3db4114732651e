import Foundation
@testable import PassProtocol
import PassTestSupport
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

/// A decisions call's body read straight from its bytes (the hot path) says what Foundation's `JSONDecoder` says,
/// for generated bodies: any whitespace, escapes, other keys and types, cut short, or bytes that are not JSON.
struct V2DecisionsRequestTests {
    static let spaces = ["", " ", "\n", "\t", "\r\n  "]

    static func body(_ generator: inout SeededRandom) -> Data {
        let space = { (g: inout SeededRandom) in Self.spaces.randomElement(using: &g)! }
        let strings = (0..<Int.random(in: 0...3, using: &generator)).map { _ in
            V2DecisionsJSONTests.awkward.randomElement(using: &generator)!
        }
        let encoded = strings.map { String(decoding: try! JSONEncoder().encode($0), as: UTF8.self) }
        var key = "\"resources\""
        switch Int.random(in: 0..<12, using: &generator) {
        case 0: key = "\"resource\""
        case 1: key = "\"resour\\u0063es\""  // the same key, escaped
        default: break
        }
        var array = "[" + encoded.map { space(&generator) + $0 + space(&generator) }.joined(separator: ",") + "]"
        if Int.random(in: 0..<12, using: &generator) == 0 { array = "[1]" }
        if Int.random(in: 0..<12, using: &generator) == 0 { array = "\"news\"" }
        var text = space(&generator) + "{" + space(&generator) + key + space(&generator) + ":" + space(&generator) + array
        if Int.random(in: 0..<8, using: &generator) == 0 { text += ",\"other\":1" }
        text += space(&generator) + "}" + space(&generator)
        var bytes = Array(text.utf8)
        switch Int.random(in: 0..<10, using: &generator) {
        case 0 where !bytes.isEmpty: bytes.removeLast(Int.random(in: 1...bytes.count, using: &generator))
        case 1: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: Int.random(in: 0...bytes.count, using: &generator))
        case 2: bytes.append(contentsOf: [0xFF, 0xFE])
        default: break
        }
        return Data(bytes)
    }

    @Test func theBytesAreReadAsJSONDecoderReadsThem() {
        struct Reference: Decodable, Equatable { var resources: [String] }
        var generator = SeededRandom(seed: 26)
        var fastlyRead = 0
        for round in 0..<3000 {
            let body = Self.body(&generator)
            let reference = (try? JSONDecoder().decode(Reference.self, from: body))?.resources
            let read = V2.DecisionsRequest.parse(body)?.resources
            #expect(read == reference, "round \(round): \(String(decoding: body, as: UTF8.self).debugDescription)")
            if body.withUnsafeBytes({ V2.DecisionsRequest.fastPath($0) }) != nil { fastlyRead += 1 }
        }
        #expect(fastlyRead > 300, "the common shape is read without the decoder")
    }
}

/// Tracking reports a device type of the seeds' list whatever the service called the device (issue #27 item 11).
struct TrackingDeviceTypeTests {
    @Test func everyDeviceClassTheServicesNameIsReportedAsOneOfTheSeedsTypes() {
        let expected: [String: TrackingDeviceType] = [
            "mobile": .mobile, "MobilePhone": .mobile, "Tablet": .tablet, "Desktop": .computer, "GamesConsole": .gameconsole,
            "SetTopBox": .unknown, "TV": .unknown, "tv": .unknown, "MediaPlayer": .unknown, "": .unknown,
        ]
        for (text, type) in expected { #expect(TrackingDeviceType.reported(text) == type, "\(text)") }
        #expect(TrackingDeviceType.of(clientType: "tvos") == .unknown && TrackingDeviceType.of(clientType: "ios") == .mobile)
    }
}
