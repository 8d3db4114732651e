/// A parsed route pattern: literal segments, `{name}` captures and a trailing `{name...}` capture.
struct RoutePattern: Sendable {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case capture(String)
        case rest(String)
    }

    let segments: [Segment]

    init(_ pattern: String) {
        segments = Self.segments(of: pattern).map { segment in
            guard segment.hasPrefix("{"), segment.hasSuffix("}") else { return .literal(segment) }
            let name = String(segment.dropFirst().dropLast())
            return name.hasSuffix("...") ? .rest(String(name.dropLast(3))) : .capture(name)
        }
    }

    /// The pattern as text again (`/api/sessions/{id}`).
    var text: String {
        "/" + segments.map { segment in
            switch segment {
            case .literal(let literal): literal
            case .capture(let name): "{\(name)}"
            case .rest(let name): "{\(name)...}"
            }
        }.joined(separator: "/")
    }

    /// Split on the `/` bytes: a combining mark right after a slash joins it into one Swift character, and a split on
    /// characters then kept `v2/\u{1AD8}` as one segment (found by schemathesis: no route matched).
    static func segments(of path: String) -> [String] {
        path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The captured parameters when `path` matches, otherwise `nil`. The shape (length and literals) is checked
    /// first without allocating: a request is tried against every route, and most of them fail on it.
    func match(_ path: [String]) -> [String: String]? {
        if case .rest? = segments.last {
            guard path.count >= segments.count else { return nil }
        } else {
            guard path.count == segments.count else { return nil }
        }
        for (index, segment) in segments.enumerated() {
            if case .literal(let literal) = segment, path[index] != literal { return nil }
        }
        var parameters: [String: String] = [:]
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .rest(let name):
                parameters[name] = path[index...].joined(separator: "/")
            case .capture(let name):
                parameters[name] = path[index]
            case .literal:
                break
            }
        }
        return parameters
    }
}
