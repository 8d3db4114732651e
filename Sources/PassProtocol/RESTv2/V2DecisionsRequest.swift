import Foundation

extension V2 {
    /// The body of a decisions call: `{"resources": ["…", …]}` (docs/rest-api-v2.md §3.10–3.11).
    public struct DecisionsRequest: Decodable, Sendable, Equatable {
        public var resources: [String]

        public init(resources: [String]) { self.resources = resources }

        /// Reads the body; `nil` when it is not a JSON object with a `resources` array of strings.
        ///
        /// The common shape (one `resources` key, strings without escapes) is read straight from the bytes; anything
        /// else goes through `JSONDecoder`, which gives the same answer (a property test holds the two together).
        /// Foundation's decoder was 4.7% of a decision's CPU under load (`perf record`, `make bench` section 2).
        public static func parse(_ body: Data) -> DecisionsRequest? {
            if let fast = body.withUnsafeBytes({ fastPath(UnsafeRawBufferPointer($0)) }) { return fast }
            return try? JSONDecoder().decode(DecisionsRequest.self, from: body)
        }

        /// `{ "resources" : [ "a" , "b" ] }` with any JSON whitespace; `nil` for anything else (escapes, other keys,
        /// other types, invalid UTF-8), which the full decoder then reads.
        static func fastPath(_ bytes: UnsafeRawBufferPointer) -> DecisionsRequest? {
            var index = 0
            func skipSpace() {
                while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
            }
            func take(_ byte: UInt8) -> Bool {
                skipSpace()
                guard index < bytes.count, bytes[index] == byte else { return false }
                index += 1
                return true
            }
            func string() -> String? {
                guard take(UInt8(ascii: "\"")) else { return nil }
                let start = index
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    // An escape or a control character: the full decoder's job.
                    guard bytes[index] != UInt8(ascii: "\\"), bytes[index] >= 0x20 else { return nil }
                    index += 1
                }
                guard index < bytes.count else { return nil }
                defer { index += 1 }
                return String(validating: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            }
            guard take(UInt8(ascii: "{")), string() == "resources", take(UInt8(ascii: ":")), take(UInt8(ascii: "[")) else { return nil }
            var resources: [String] = []
            if !take(UInt8(ascii: "]")) {
                repeat {
                    guard let resource = string() else { return nil }
                    resources.append(resource)
                } while take(UInt8(ascii: ","))
                guard take(UInt8(ascii: "]")) else { return nil }
            }
            guard take(UInt8(ascii: "}")) else { return nil }
            skipSpace()
            return index == bytes.count ? DecisionsRequest(resources: resources) : nil
        }
    }
}
