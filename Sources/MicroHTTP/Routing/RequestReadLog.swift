import Foundation
import Locking

/// Records which inputs handlers read from a request: query and form parameters, headers, and the fields of a JSON
/// body (see ``BodyProbe``). Off by default (``Request/readLog`` is nil, one check per read); tests set it to learn
/// what each route reads, so a fuzzer can send extreme values in exactly those inputs, route by route.
public final class RequestReadLog: Sendable {
    /// Where an input is read from.
    public enum Source: String, Sendable, Hashable {
        /// ``Request/query(_:)``.
        case query
        /// ``Request/parameter(_:)``: the form body, else the query string.
        case parameter
        /// ``Request/header(_:)``.
        case header
    }

    /// One input read.
    public struct Input: Sendable, Hashable {
        /// Where the input was read from.
        public var source: Source
        /// The parameter's or header's name.
        public var name: String
    }

    private let state = Mutex<(inputs: Set<Input>, body: [BodyProbe.Field]?)>(([], nil))

    /// An empty log.
    public init() {}

    /// The inputs read so far.
    public var inputs: Set<Input> { state.withLock { $0.inputs } }
    /// The fields of the JSON body type the handler decoded, if it decoded one.
    public var bodyFields: [BodyProbe.Field]? { state.withLock { $0.body } }

    func record(_ source: Source, _ name: String) {
        _ = state.withLock { $0.inputs.insert(Input(source: source, name: name)) }
    }

    /// Records the fields `type` reads from a JSON body; handlers' decode helpers call this.
    public func recordBody<T: Decodable>(_ type: T.Type) {
        let fields = BodyProbe.fields(of: type)
        state.withLock { $0.body = ($0.body ?? []) + fields }
    }
}
