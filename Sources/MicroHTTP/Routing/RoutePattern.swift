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

    static func segments(of path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    /// The captured parameters when `path` matches, otherwise `nil`.
    func match(_ path: [String]) -> [String: String]? {
        var parameters: [String: String] = [:]
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .rest(let name):
                guard index < path.count else { return nil }
                parameters[name] = path[index...].joined(separator: "/")
                return parameters
            case .literal(let literal):
                guard index < path.count, path[index] == literal else { return nil }
            case .capture(let name):
                guard index < path.count else { return nil }
                parameters[name] = path[index]
            }
        }
        return path.count == segments.count ? parameters : nil
    }
}
