import Foundation

/// A small reader of Prometheus' text exposition format (0.0.4), strict enough that output a Prometheus server would
/// refuse fails a test: every sample belongs to a family announced by `# TYPE` before it, label sets are well formed
/// (quoted values with `\\`, `\"`, `\n` escapes), values are numbers.
struct PrometheusText {
    struct Sample: Equatable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    struct Malformed: Error, CustomStringConvertible {
        var line: Int
        var text: String
        var why: String
        var description: String { "line \(line): \(why): \(text)" }
    }

    /// `# HELP` text by family name.
    var help: [String: String] = [:]
    /// `# TYPE` by family name (`counter`, `gauge`, `histogram`, …).
    var types: [String: String] = [:]
    var samples: [Sample] = []

    init(_ text: String) throws {
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
                guard parts.count >= 3 else { continue }  // a plain comment
                let name = String(parts[2])
                switch parts[1] {
                case "HELP":
                    guard help[name] == nil else { throw Malformed(line: number, text: String(line), why: "second HELP") }
                    help[name] = parts.count > 3 ? String(parts[3]) : ""
                case "TYPE":
                    guard parts.count == 4, ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[3]) else {
                        throw Malformed(line: number, text: String(line), why: "bad TYPE")
                    }
                    guard types[name] == nil else { throw Malformed(line: number, text: String(line), why: "second TYPE") }
                    types[name] = String(parts[3])
                default: continue
                }
                continue
            }
            let sample = try Self.sample(line, number)
            guard types[Self.family(of: sample.name, types)] != nil else {
                throw Malformed(line: number, text: String(line), why: "sample before its family's TYPE")
            }
            samples.append(sample)
        }
    }

    /// The family a sample's name belongs to (`x` for `x_bucket`, `x_sum`, `x_count` of a histogram `x`).
    static func family(of name: String, _ types: [String: String]) -> String {
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            if types[base] == "histogram" || types[base] == "summary" { return base }
        }
        return name
    }

    private static func sample(_ line: Substring, _ number: Int) throws -> Sample {
        func fail(_ why: String) -> Malformed { Malformed(line: number, text: String(line), why: why) }
        var rest = line[...]
        let nameEnd = rest.firstIndex { $0 == "{" || $0 == " " } ?? rest.endIndex
        let name = String(rest[..<nameEnd])
        guard let first = name.first, first.isLetter || first == "_" || first == ":",
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ":") })
        else { throw fail("bad metric name") }
        rest = rest[nameEnd...]
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                guard let equals = rest.firstIndex(of: "=") else { throw fail("label without =") }
                let label = String(rest[..<equals])
                guard !label.isEmpty, label.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
                    throw fail("bad label name")
                }
                rest = rest[rest.index(after: equals)...]
                guard rest.first == "\"" else { throw fail("unquoted label value") }
                rest = rest.dropFirst()
                var value = ""
                while true {
                    guard let c = rest.first else { throw fail("unterminated label value") }
                    rest = rest.dropFirst()
                    if c == "\"" { break }
                    if c == "\\" {
                        guard let escaped = rest.first else { throw fail("dangling escape") }
                        rest = rest.dropFirst()
                        switch escaped {
                        case "n": value.append("\n")
                        case "\\", "\"": value.append(escaped)
                        default: throw fail("bad escape")
                        }
                    } else {
                        value.append(c)
                    }
                }
                guard labels.updateValue(value, forKey: label) == nil else { throw fail("repeated label") }
                if rest.first == "," { rest = rest.dropFirst() }
            }
            rest = rest.dropFirst()
        }
        let fields = rest.split(separator: " ")
        guard (1...2).contains(fields.count) else { throw fail("expected a value (and a timestamp)") }
        let text = String(fields[0])
        guard let value = ["+Inf": Double.infinity, "-Inf": -Double.infinity, "NaN": Double.nan][text] ?? Double(text) else {
            throw fail("value is not a number")
        }
        return Sample(name: name, labels: labels, value: value)
    }

    /// The value of the sample `name` whose labels include `labels`; nil when there is none.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        all(name, labels).first?.value
    }

    /// Every sample `name` whose labels include `labels`.
    func all(_ name: String, _ labels: [String: String] = [:]) -> [Sample] {
        samples.filter { sample in sample.name == name && labels.allSatisfy { key, value in sample.labels[key] == value } }
    }
}
