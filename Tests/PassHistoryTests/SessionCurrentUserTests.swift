import AccessEnabler
import HistoryTestSupport
import Foundation
import PassEvents
import PassHistory
import Testing

/// A session's user is its current one (issue #27 item 5: the Sessions "User" column kept the first user after
/// another signed in). The SDK sends a user ID (`session_guid`) only with an authorization, but reports every sign-in's
/// hashed user ID in tracking at once: when the latest hash is someone else's, the stored user ID is no longer current.
struct SessionCurrentUserTests {
    static let carol = "11111111-2222-3333-4444-555555555555"
    static let dave = "AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE"

    static func events(_ session: UUID) -> (authorize: (String, Int) -> EntitlementEvent, signedIn: (String, Int) -> EntitlementEvent) {
        let app = AppIdentity(bundleID: "com.example.users", teamID: "U")
        let authorize = { (guid: String, sequence: Int) in
            EntitlementEvent(sequence: sequence, timestamp: Date(), sessionID: session, deviceID: "d", app: app, requestorID: "REF30",
                mvpdID: "Dish", kind: .httpExchange(exchange: HTTPExchange(method: "POST", url: "http://x/authorizeDevice",
                    parameters: ["session_guid": guid], status: 200, responseBody: nil, failure: nil, durationMs: 1)))
        }
        let signedIn = { (guid: String, sequence: Int) in
            EntitlementEvent(sequence: sequence, timestamp: Date(), sessionID: session, deviceID: "d", app: app, requestorID: "REF30",
                mvpdID: "Dish", kind: .tracking(event: .authenticationDetection,
                    data: ["YES", "Dish", TrackingEvent.userHash(of: guid), "NO", "mobile", "ios", "iOS"]))
        }
        return (authorize, signedIn)
    }

    @Test(arguments: HistoryBackend.allCases) func anotherUsersSignInEndsTheStoredUserIDUntilTheirOwnIsSent(history backend: HistoryBackend) async throws {
        try await withHistory(backend) { history in
            let session = UUID()
            let (authorize, signedIn) = Self.events(session)
            // carol signs in and is authorized: her user ID and hash
            _ = try await history.append([signedIn(Self.carol, 1), authorize(Self.carol, 2)])
            #expect(try await history.session(session)?.userID == Self.carol)
            // her sign-in reported again (a cached token): still carol
            _ = try await history.append([signedIn(Self.carol, 3)])
            #expect(try await history.session(session)?.userID == Self.carol)
            // dave signs in on the same app run: his hash, no user ID yet — carol is no longer the current user
            _ = try await history.append([signedIn(Self.dave, 4)])
            let afterDave = try await history.session(session)
            #expect(afterDave?.userID == nil)
            #expect(afterDave?.trackingHash == TrackingEvent.userHash(of: Self.dave))
            // his first authorization names him
            _ = try await history.append([authorize(Self.dave, 5)])
            #expect(try await history.session(session)?.userID == Self.dave)
            // within one batch the last word counts
            _ = try await history.append([authorize(Self.dave, 6), signedIn(Self.carol, 7)])
            #expect(try await history.session(session)?.userID == nil)
        }
    }
}
