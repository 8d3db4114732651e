import AccessEnabler
import Foundation
import HistoryTestSupport
import Testing
@testable import PassHistory

/// The stored view is written as bytes on the ingest path (``EventView/Parts``, bound in place by the SQLite
/// history): the bytes must stay exactly the documented composition — what `GET /api/events` and the live feed send.
@Suite("EventView bytes")
struct EventViewBytesTests {
    /// Events whose texts need escapes (quotes, backslashes, control characters, non-ASCII) in every place a view
    /// holds text: the event's JSON, the `http` member, the kind and the summary.
    static var events: [EntitlementEvent] {
        let session = UUID()
        let app = AppIdentity(bundleID: "com.example.views.ios", teamID: "VIEWS1")
        let tricky = ["quote \" and \\ backslash", "line\nbreak\ttab\r", "ctl \u{01}\u{1F}", "é ü 漢字 🎬", "", "</script> /path"]
        var kinds: [EntitlementEvent.Kind] = tricky.map { .apiCall(name: $0, arguments: [$0: $0]) }
        kinds += [
            .httpExchange(exchange: HTTPExchange(method: "POST", url: "http://127.0.0.1:1/a \"b\"?x=\u{01}", parameters: ["a": "1"],
                status: 200, responseBody: "<a>\n</a>", failure: nil, durationMs: 12)),
            .httpExchange(exchange: HTTPExchange(method: "GET", url: "u", parameters: [:], status: nil, responseBody: nil,
                failure: "timed out \"late\"\n", durationMs: 0.1234567)),
            .httpExchange(exchange: HTTPExchange(method: "GET", url: "u", parameters: [:], status: 0, responseBody: nil,
                failure: nil, durationMs: 1e-7)),
            .error(code: "E\u{7}", message: "0033: \"not\" in package"),
            .stateChanged(flow: "authentication", from: "idle", to: "awaitingLogin(Dish \"x\")"),
        ]
        return kinds.enumerated().map { index, kind in
            EntitlementEvent(sequence: index, timestamp: Date(timeIntervalSinceReferenceDate: 785_000_000 + Double(index)),
                sessionID: session, deviceID: "device \"\(index)\"", app: app, requestorID: index % 2 == 0 ? "REF\"30" : nil,
                mvpdID: index % 3 == 0 ? "Dish\n" : nil, kind: kind)
        }
    }

    /// The view as documented (``EventView``), built by string concatenation with `JSONEncoder`'s string literals.
    static func reference(_ event: EntitlementEvent, id: Int64) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let literal = { (text: String) in String(decoding: try encoder.encode(text), as: UTF8.self) }
        var http = "null"
        if case .httpExchange(let exchange) = event.kind {
            let summary = exchange.summary
            http = "{\"durationMs\":\(summary.durationMs),\"failure\":" + (try summary.failure.map(literal) ?? "null")
                + ",\"method\":" + (try literal(summary.method))
                + ",\"status\":" + (summary.status.flatMap { $0 == 0 ? nil : String($0) } ?? "null")
                + ",\"url\":" + (try literal(summary.url)) + "}"
        }
        return "{\"event\":" + event.fastJSON(dates: .iso8601) + ",\"http\":" + http + ",\"id\":" + String(id)
            + ",\"kind\":" + (try literal(EventKind(event.kind).rawValue)) + ",\"summary\":" + (try literal(event.summary)) + "}"
    }

    @Test("a view's bytes are the documented composition, for any ID (the digits written without a String)")
    func partsMatchTheReference() throws {
        for event in Self.events {
            let parts = EventView.parts(of: event, summary: event.summary)
            for id: Int64 in [0, 1, 9, 10, 99, 100, 123_456_789, Int64.max, -1, Int64.min] {
                #expect(parts.json(id: id) == (try Self.reference(event, id: id)))
            }
            var prefixed: [UInt8] = Array("prefix".utf8)
            parts.write(id: 42, to: &prefixed)
            #expect(String(decoding: prefixed, as: UTF8.self) == "prefix" + (try Self.reference(event, id: 42)))
        }
    }

    @Test("the event's JSON appended to bytes is fastJSON's text after what was there")
    func writeFastJSONAppends() {
        for event in Self.events {
            var bytes: [UInt8] = Array("{\"event\":".utf8)
            event.writeFastJSON(into: &bytes, dates: .iso8601)
            #expect(String(decoding: bytes, as: UTF8.self) == "{\"event\":" + event.fastJSON(dates: .iso8601))
        }
    }

    @Test("appended events are stored as their documented views, byte for byte", arguments: HistoryBackend.allCases)
    func storedViewsMatchTheReference(backend: HistoryBackend) async throws {
        try await withHistory(backend) { history in
            let events = Self.events
            #expect(try await history.append(events) == events.count)
            let page = try await history.rawPage(matching: .all, before: nil, after: nil, limit: 100).events
            #expect(page.ids.count == events.count)
            // IDs are handed out in the order the events were appended.
            let order = page.ids.sorted()
            let expected = try page.ids.map { id in try Self.reference(events[order.firstIndex(of: id)!], id: id) }
            #expect(String(decoding: page.json, as: UTF8.self) == expected.joined(separator: ","))
        }
    }
}
