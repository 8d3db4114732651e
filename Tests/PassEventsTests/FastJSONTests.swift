import Foundation
import Testing
@testable import PassEvents

/// The history's fast event writer must produce exactly what `JSONEncoder` produces, for every kind of event.
struct FastJSONTests {
    static let tricky = ["plain", "quote \" and \\ backslash", "line\nbreak\ttab\r", "ctl \u{01}\u{1F}", "slash /path?q=a&b",
                         "é ü 漢字 🎬", "", "</script>", "\u{2028}sep",
                         "quote then combining mark \"\u{301} and \\\u{301}", "\"\u{301}"]

    static var events: [EntitlementEvent] {
        let app = AppIdentity(bundleID: "com.example.news.ios", teamID: "TEAM1234")
        let mvpd = MVPD(ID: "Cablevision", displayName: "Opt \"imum\"", logoURL: "http://127.0.0.1:8081/logos/C.svg")
        var withBoarding = mvpd
        withBoarding.boardingStatus = "picker"
        var kinds: [EntitlementEvent.Kind] = [
            .stateChanged(flow: "authentication", from: "idle", to: "awaitingLogin(Dish)"),
            .stateChanged(flow: .requestor, from: .configuring(queued: 3), to: .failed),
            .stateChanged(flow: .other("authorization"), from: .polling(mvpd: "Dish", code: "A\"B"), to: .other("x\ny")),
            .apiCall(method: .checkPreauthorizedResources, arguments: ["resources": "news,kids"]),
            .storageChanged(domain: "team T", change: "sanitizer removed 1 token(s)"),
            .tracking(event: .authorizationDetection, data: ["YES", "Dish", "", "NO"]),
            .error(code: "User Not Authorized Error", message: "0033: \"not\" in package"),
            .httpExchange(exchange: HTTPExchange(method: "POST", url: "http://127.0.0.1:1/a/b?x=1", parameters: ["b": "2", "a": "1", "B": "3"],
                headers: ["X-Device-Info": "abc/def"], status: 200, responseBody: "<a>\n</a>", failure: nil, durationMs: 12,
                serverDate: Date(timeIntervalSince1970: 1_795_000_000))),
            .httpExchange(exchange: HTTPExchange(method: "GET", url: "u", parameters: [:], status: nil, responseBody: nil,
                failure: "timed out", durationMs: 0.1234567)),
            .httpExchange(exchange: HTTPExchange(method: "GET", url: "u", parameters: [:], status: 503, responseBody: nil,
                failure: nil, durationMs: 1e-7)),
            .httpExchange(exchange: HTTPExchange(method: "POST", url: "u", parameters: [:], status: 401, responseBody: "<error/>",
                failure: nil, durationMs: 3, errorCode: "token_requestor_mismatch")),
            .httpExchange(exchange: HTTPExchange(method: "POST", url: "/api/v1/authorize", parameters: ["deviceId": "box/1"], status: 503,
                responseBody: "{}", failure: nil, durationMs: 2, serverDate: Date(timeIntervalSince1970: 1_795_000_001),
                served: ServedFacts(recorder: .proxy, client: .restV1, operation: "REST v1 authorize", registrationCode: "AB\"C",
                    userID: "u/1", username: "é", change: .revoked, pendingLogout: true, token: "t </x>", advancedStatus: "E",
                    rule: "answer 503 on authorize"))),
        ]
        for text in tricky { kinds.append(.apiCall(name: text, arguments: [text: text, "z": "1", "Z": "2", "a": text])) }
        let callbacks: [EntitlementCallback] = [
            .setRequestorComplete(status: 1), .setAuthenticationStatus(status: 0, errorCode: nil),
            .setAuthenticationStatus(status: 1, errorCode: ""), .displayProviderDialog(mvpds: [mvpd, withBoarding]),
            .displayProviderDialog(mvpds: []), .navigateToUrl(url: "http://x/y", useSVC: nil), .navigateToUrl(url: "adbe.x://", useSVC: true),
            .setToken(token: "<signatureInfo>…", resource: "news"),
            .tokenRequestFailed(resource: "news", errorCode: "Generic Authorization Error", errorDescription: nil),
            .tokenRequestFailed(resource: "news", errorCode: "E", errorDescription: "d\n"), .selectedProvider(mvpd: nil),
            .selectedProvider(mvpd: mvpd), .sendTrackingData(event: .mvpdSelection, data: ["a"]),
            .setMetadataStatus(metadata: nil, encrypted: false, key: 0, arguments: nil),
            .setMetadataStatus(metadata: ["zip": ["10001", 10002], "rating": ["MPAA": "R", "age": 17.5], "hoh": true, "none": nil],
                encrypted: true, key: 3, arguments: ["opCode": "3", "user_metadata_name": "zip"]),
            .setMetadataStatus(metadata: 42, encrypted: false, key: 3, arguments: ["opCode": "3", "user_metadata_name": "channelCount"]),
            .preauthorizedResources(resources: ["news", "kids"]), .preauthorizedResources(resources: []),
            .presentTvProviderDialog, .dismissTvProviderDialog, .status(statusDictionary: ["status": "N003", "level": "warning"]),
        ]
        kinds += callbacks.map { .callback(callback: $0) }
        return kinds.enumerated().map { index, kind in
            EntitlementEvent(
                sequence: index * 977, timestamp: Date(timeIntervalSinceReferenceDate: 785_000_000.123456 + Double(index) * 1.1),
                sessionID: UUID(), deviceID: "device/\(index)", app: index % 3 == 0 ? AppIdentity(bundleID: "b", teamID: "t", platform: .tvOS) : app,
                requestorID: index % 2 == 0 ? "REF30" : nil, mvpdID: index % 4 == 0 ? "Dish" : nil, kind: kind)
        }
    }

    @Test func matchesJSONEncoderByteForByteForEveryKind() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .deferredToDate
        for event in Self.events {
            let expected = String(decoding: try encoder.encode(event), as: UTF8.self)
            #expect(event.fastJSON() == expected)
        }
    }

    @Test func theWireFormMatchesTheWireEncoderAndDecodesBack() throws {
        let encoder = EntitlementEvent.Wire.encoder()
        for event in Self.events {
            let fast = event.fastJSON(dates: .iso8601)
            #expect(fast == String(decoding: try encoder.encode(event), as: UTF8.self))
            let decoded = try EntitlementEvent.Wire.decoder().decode(EntitlementEvent.self, from: Data(fast.utf8))
            #expect(decoded.kind == event.kind)
        }
    }
}

extension FastJSONTests {
    @Test func aJSONStringIsEscapedAsJSONEncoderEscapesIt() {
        #expect(EntitlementEvent.Wire.jsonString("a\"b\n") == #""a\"b\n""#)
    }
}
