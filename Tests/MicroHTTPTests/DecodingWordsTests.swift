import DecodingWords
import Foundation
import Testing

/// Every decoding failure a person reads names what is wrong and where, in words (issue #27 item 5).
struct DecodingWordsTests {
    struct Storage: Decodable {
        struct Bucket: Decodable { var current: String?; var tokens: [String] }
        var version: Int
        var requestors: [String: Bucket]
    }

    static func words(_ json: String) -> String? {
        do { _ = try JSONDecoder().decode(Storage.self, from: Data(json.utf8)); return nil } catch { return DecodingError.words(error) }
    }

    @Test(arguments: [
        (#"{"version":3}"#, "'requestors' is missing"),
        (#"{"version":"3","requestors":{}}"#, "version should be a whole number, not text"),
        (#"{"version":3,"requestors":{"REF30":"signed in"}}"#, "requestors.REF30 should be an object, not text"),
        (#"{"version":3,"requestors":{"REF30":{"tokens":["a",7]}}}"#, "requestors.REF30.tokens[1] should be text, not a number"),
        (#"{"version":null,"requestors":{}}"#, "version is empty (null); it should be a whole number"),
        (#"{"version":3,"requestors":{"REF30":{}}}"#, "'tokens' is missing in requestors.REF30"),
        (#"{"version":3,"#, "it is not valid JSON"),
    ])
    func eachFailureIsSaidInWords(json: String, expected: String) {
        let said = Self.words(json)
        #expect(said == expected)
        #expect(said.map { !$0.contains("CodingKeys") && !$0.contains("Context(") } == true)
    }
}
