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

    static func segments(of path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
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
