import AccessEnabler
import Foundation
import MicroHTTP

extension Console {
    /// `response` as a viewer may read it: every string of a JSON answer goes through the export rule
    /// (``PersonalDataRedaction``: user IDs, household IDs, usernames and emails become stable stand-ins, ZIP codes go),
    /// having learned the personal values in the answer itself and in the device's storage. Numbers, keys and the
    /// answer's shape are kept. Files, exports (already redacted unless revealed, which viewers may not) and
    /// non-JSON answers pass as they are.
    func redactedForViewer(_ response: Response) -> Response {
        guard case .data(let data) = response.body, !data.isEmpty,
            (response.header("Content-Type") ?? "").lowercased().hasPrefix("application/json"),
            let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        else { return response }
        var redaction = personalDataRedaction()
        redaction.learn(fromText: String(decoding: data, as: UTF8.self))
        let redacted = Self.redactStrings(object, &redaction)
        guard let body = try? JSONSerialization.data(withJSONObject: redacted, options: [.fragmentsAllowed, .withoutEscapingSlashes])
        else { return response }
        var answer = response
        answer.body = .data(body)
        answer.headers.removeAll { $0.name.lowercased() == "content-length" || $0.name.lowercased() == "etag" }
        return answer
    }

    /// An event's stored view (JSON) as a viewer may read it, by the same rule as ``redactedForViewer(_:)``.
    func redactedViewForViewer(_ view: String) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(view.utf8), options: [.fragmentsAllowed]) else { return "{}" }
        var redaction = personalDataRedaction()
        redaction.learn(fromText: view)
        let redacted = Self.redactStrings(object, &redaction)
        guard let body = try? JSONSerialization.data(withJSONObject: redacted, options: [.fragmentsAllowed, .withoutEscapingSlashes])
        else { return "{}" }
        return String(decoding: body, as: UTF8.self)
    }

    private static func redactStrings(_ value: Any, _ redaction: inout PersonalDataRedaction) -> Any {
        switch value {
        case let text as String: return redaction.redact(text)
        case let array as [Any]: return array.map { redactStrings($0, &redaction) }
        case let object as [String: Any]: return object.mapValues { redactStrings($0, &redaction) }
        default: return value
        }
    }

    /// Answers for a viewer are redacted; everyone else's pass as they are.
    func forReader(_ response: Response, of request: Request) -> Response {
        guard PathNormalizer.guardedHead(of: request.path) == "api", identity(of: request).role == .viewer else { return response }
        return redactedForViewer(response)
    }
}
