import Foundation
import PassEvents
@testable import PassHistory
import Testing

/// The v1–v6 stored form (dates as seconds since 2001) becomes the wire form by rewriting its dates, without decoding:
/// what the v7 migration does to every stored row.
struct StoredEventFormTests {
    @Test func storedJSONBecomesTheWireFormWithoutDecoding() throws {
        let app = AppIdentity(bundleID: "com.example.news.ios", teamID: "TEAM1234")
        let kinds: [EntitlementEvent.Kind] = [
            .apiCall(method: .getAuthorization, arguments: ["resource": "news \"quoted\""]),
            .httpExchange(exchange: HTTPExchange(method: "GET", url: "http://x/a?b=1", parameters: [:], status: 200, responseBody: "{}",
                failure: nil, durationMs: 3.25, serverDate: Date(timeIntervalSince1970: 1_795_000_000.5))),
            .httpExchange(exchange: HTTPExchange(method: "POST", url: "u", parameters: [:], status: 403, responseBody: nil, failure: nil,
                durationMs: 1, errorCode: "session_revoked", served: ServedFacts(recorder: .backend, client: .web, userID: "u-1"))),
            .callback(callback: .setAuthenticationStatus(status: 1, errorCode: nil)),
        ]
        for (index, kind) in kinds.enumerated() {
            let event = EntitlementEvent(
                sequence: index, timestamp: Date(timeIntervalSinceReferenceDate: 785_000_000.123 + Double(index)), sessionID: UUID(),
                deviceID: "d", app: app, requestorID: "REF30", mvpdID: nil, kind: kind)
            let wire = try #require(StoredEventForm.fromStored(event.fastJSON(dates: .referenceSeconds)))
            #expect(wire == event.fastJSON(dates: .iso8601))
        }
        #expect(StoredEventForm.fromStored("{\"a\":1}") == nil)
    }
}
