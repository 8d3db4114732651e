import AccessEnabler
import Foundation
import MicroHTTP

/// The SDK's HTTP exchanges as HAR 1.2 (the format browsers' network panels and proxies exchange), built from the
/// stored events and already redacted like them.
struct HARDocument: Codable, Sendable, Equatable {
    struct Log: Codable, Sendable, Equatable {
        var version = "1.2"
        var creator = Creator(name: "PassConsole", version: AccessEnabler.version)
        var pages: [Page] = []
        var entries: [Entry]
        /// What was done to personal data, in words (HAR 1.2's free-text `comment`).
        var comment: String?
        /// The same as data (a custom field: HAR allows those that start with `_`).
        var _personalData: PersonalDataRedaction.Report?
    }

    struct Creator: Codable, Sendable, Equatable {
        var name: String
        var version: String
    }

    struct Page: Codable, Sendable, Equatable {
        var startedDateTime: String
        var id: String
        var title: String
        var pageTimings: [String: Double] = [:]
    }

    struct NameValue: Codable, Sendable, Equatable {
        var name: String
        var value: String
    }

    struct Entry: Codable, Sendable, Equatable {
        var pageref: String?
        var startedDateTime: String
        var time: Double
        var request: HARRequest
        var response: HARResponse
        var cache: [String: String] = [:]
        var timings: Timings
        var comment: String?
    }

    struct HARRequest: Codable, Sendable, Equatable {
        var method: String
        var url: String
        var httpVersion = "HTTP/1.1"
        var cookies: [NameValue] = []
        var headers: [NameValue]
        var queryString: [NameValue]
        var postData: PostData?
        var headersSize = -1
        var bodySize: Int
    }

    struct PostData: Codable, Sendable, Equatable {
        var mimeType: String
        var params: [NameValue]
        var text: String
    }

    struct HARResponse: Codable, Sendable, Equatable {
        var status: Int
        var statusText: String
        var httpVersion = "HTTP/1.1"
        var cookies: [NameValue] = []
        var headers: [NameValue] = []
        var content: Content
        var redirectURL: String
        var headersSize = -1
        var bodySize: Int
        var _error: String?
    }

    struct Content: Codable, Sendable, Equatable {
        var size: Int
        var mimeType: String
        var text: String?
    }

    struct Timings: Codable, Sendable, Equatable {
        var send: Double = 0
        var wait: Double
        var receive: Double = 0
    }

    var log: Log

    /// The HTTP exchanges among `events`, one page per app session; `personalData` says what was done to personal
    /// data (see ``PersonalDataRedaction``).
    init(_ events: [EntitlementEvent], personalData: PersonalDataRedaction.Report? = nil) {
        var pages: [String: Page] = [:]
        var entries: [Entry] = []
        for event in events {
            guard case .httpExchange(let exchange) = event.kind else { continue }
            let pageID = event.sessionID.uuidString
            if pages[pageID] == nil {
                pages[pageID] = Page(startedDateTime: EntitlementEvent.Wire.format(event.timestamp), id: pageID,
                    title: "\(event.app.bundleID) (\(event.requestorID ?? "no Programmer yet"))")
            }
            let isGET = exchange.method == "GET" || exchange.method == "DELETE"
            let parameters = exchange.parameters.sorted { $0.key < $1.key }.map { NameValue(name: $0.key, value: $0.value) }
            let form = parameters.map { "\(Self.escape($0.name))=\(Self.escape($0.value))" }.joined(separator: "&")
            let body = exchange.responseBody ?? ""
            let started = event.timestamp.addingTimeInterval(-exchange.durationMs / 1000)
            entries.append(Entry(
                pageref: pageID, startedDateTime: EntitlementEvent.Wire.format(started), time: exchange.durationMs,
                request: HARRequest(
                    method: exchange.method, url: exchange.url,
                    headers: exchange.headers.sorted { $0.key < $1.key }.map { NameValue(name: $0.key, value: $0.value) },
                    queryString: isGET ? parameters : [],
                    postData: isGET ? nil : PostData(mimeType: "application/x-www-form-urlencoded", params: parameters, text: form),
                    bodySize: isGET ? 0 : form.utf8.count),
                response: HARResponse(
                    status: exchange.status ?? 0, statusText: exchange.status.map { HTTPStatus($0).reasonPhrase } ?? "",
                    content: Content(size: body.utf8.count, mimeType: Self.mimeType(body), text: body),
                    redirectURL: "", bodySize: exchange.status == nil ? -1 : body.utf8.count,
                    _error: exchange.failure),
                timings: Timings(wait: exchange.durationMs),
                comment: exchange.failure.map { "No answer: \($0)" }))
        }
        log = Log(pages: pages.values.sorted { $0.startedDateTime < $1.startedDateTime }, entries: entries,
            comment: personalData.map { $0.revealed ? "Personal data kept on purpose (audited)." : "Redacted: \($0.removedText). \($0.rule)" },
            _personalData: personalData)
    }

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }

    static func mimeType(_ body: String) -> String {
        let start = body.drop { $0.isWhitespace }.first
        return start == "<" ? "application/xml" : start == "{" || start == "[" ? "application/json" : "text/plain"
    }

}
