import Foundation
import Testing
@testable import PassConsole
import AccessEnabler

/// ``PersonalDataRedaction``: the one rule every export applies to user IDs, household IDs, usernames, emails and
/// ZIP codes.
struct PersonalDataRedactionTests {
    /// What the backend or a proxy recorded of an exchange (the user it signed in, the username typed at the MVPD,
    /// the token in words) leaves an export replaced, as an SDK event's personal data does.
    @Test func aServedExchangesUserAndUsernameAreReplacedInExports() throws {
        let served = ServedFacts(recorder: .backend, client: .web, userID: "92EAFB22-A373-491C-B895-6722669DD1DB",
            username: "alice.smith", token: "authN token of alice.smith at Cablevision for REF30: valid")
        let event = EntitlementEvent(
            sequence: 1, timestamp: Date(), sessionID: UUID(), deviceID: "d", app: AppIdentity(bundleID: "web", teamID: ""),
            requestorID: "REF30", mvpdID: "Cablevision",
            kind: .httpExchange(exchange: HTTPExchange(method: "POST", url: "/mvpd/Cablevision/login", parameters: ["j_username": "alice.smith"],
                status: 200, responseBody: nil, failure: nil, durationMs: 1, served: served)))
        var redaction = PersonalDataRedaction(key: Self.key)
        redaction.learn(from: [event])
        let text = redaction.redact(event).fastJSON()
        #expect(!text.contains("alice.smith"), "\(text)")
        #expect(!text.contains("92EAFB22-A373-491C-B895-6722669DD1DB"), "\(text)")
    }

    /// MVPD login pages' user-name fields (kept in the history, beside the redacted password) are personal data in
    /// exports.
    @Test func loginFormUserNameFieldsAreUsernames() {
        #expect(PersonalDataRedaction.Field.named("j_username") == .username)
        #expect(PersonalDataRedaction.Field.named("IDToken1") == .username)
        #expect(PersonalDataRedaction.Field.named("UserName") == .username)
    }

    static let key = Data(repeating: 7, count: 32)
    static let guid = "DAC9E095-1A2B-4C3D-8E9F-0123456789AB"

    static func event(_ kind: EntitlementEvent.Kind, sequence: Int = 1) -> EntitlementEvent {
        EntitlementEvent(sequence: sequence, timestamp: Date(timeIntervalSinceReferenceDate: 0), sessionID: UUID(), deviceID: "d",
            app: AppIdentity(bundleID: "com.example.news.ios", teamID: "TEAM1234"), requestorID: "REF30", mvpdID: "Cablevision",
            kind: kind)
    }

    /// The demo's sign-in as the SDK records it: the user's GUID sent to authorize, user metadata asked for and
    /// answered (household, ZIP, user ID), and a later error that quotes the household.
    static let session: [EntitlementEvent] = [
        event(.httpExchange(exchange: HTTPExchange(method: "POST", url: "http://127.0.0.1:8081/adobe-services/1.0/deviceShortAuthorize",
            parameters: ["session_guid": guid, "requestor_id": "REF30", "mso_id": "Cablevision"], status: 200,
            responseBody: "[token redacted]", failure: nil, durationMs: 3))),
        event(.callback(callback: .setMetadataStatus(metadata: "hh-alice", encrypted: false, key: 3,
            arguments: ["user_metadata_name": "householdID"])), sequence: 2),
        event(.callback(callback: .setMetadataStatus(metadata: ["10001"], encrypted: false, key: 3,
            arguments: ["user_metadata_name": "zip"])), sequence: 3),
        event(.httpExchange(exchange: HTTPExchange(method: "GET", url: "http://127.0.0.1:8081/api/v1/tokens/usermetadata",
            parameters: [:], status: 200,
            responseBody: #"{"data":{"userID":"Cablevision-alice","email":"alice@example.com"},"updated":110001}"#,
            failure: nil, durationMs: 3)), sequence: 4),
        event(.error(code: "X", message: "household hh-alice of Cablevision-alice refused."), sequence: 5),
    ]

    @Test("every user ID, household, ZIP and email of a session is replaced wherever it appears; the rest is kept")
    func sessionIsRedactedEverywhere() throws {
        var redaction = PersonalDataRedaction(key: Self.key)
        redaction.learn(from: Self.session)
        let redacted = Self.session.map { redaction.redact($0) }
        let text = String(decoding: try EntitlementEvent.Wire.ndjson(redacted), as: UTF8.self)
        for value in [Self.guid, "hh-alice", "Cablevision-alice", "alice@example.com"] {
            #expect(!text.contains(value), "still holds \(value)")
        }
        #expect(!text.contains(#"\"10001\""#), "still holds the ZIP code")
        // Stand-ins in their place, and what is not personal untouched: the Programmer, the MVPD, a number that merely
        // contains the ZIP code's digits.
        #expect(text.contains(redaction.standIn(for: Self.guid, as: .userID)))
        #expect(text.contains(redaction.standIn(for: "hh-alice", as: .householdID)))
        #expect(text.contains(PersonalDataRedaction.removedZip))
        #expect(text.contains("REF30") && text.contains("\"mso_id\":\"Cablevision\"") && text.contains("110001"))
        guard case .error(_, let message) = redacted[4].kind else { throw CancellationError() }
        #expect(message == "household \(redaction.standIn(for: "hh-alice", as: .householdID)) of "
            + "\(redaction.standIn(for: "Cablevision-alice", as: .userID)) refused.")
        // The report names what was found, in the order people read it.
        #expect(redaction.report(revealed: false).removed == [.userID, .householdID, .email, .zip])
        #expect(redaction.report(revealed: false).removedText == "user IDs, household IDs, email addresses, ZIP codes")
    }

    @Test("one value gets one stand-in for one key, so a user's rows still group; another key gives another")
    func standInsAreStableAndKeyed() {
        let a = PersonalDataRedaction(key: Self.key), b = PersonalDataRedaction(key: Data(repeating: 8, count: 32))
        #expect(a.standIn(for: Self.guid, as: .userID) == a.standIn(for: Self.guid, as: .userID))
        #expect(a.standIn(for: Self.guid, as: .userID).hasPrefix("u-") && a.standIn(for: Self.guid, as: .userID).count == 10)
        #expect(a.standIn(for: Self.guid, as: .userID) != b.standIn(for: Self.guid, as: .userID))
        #expect(a.standIn(for: "alice", as: .username).hasPrefix("n-"))
        #expect(a.standIn(for: "10001", as: .zip) == "[ZIP removed]")
    }

    @Test("a value under a personal name is replaced even when it was never learned, and emails anywhere")
    func namedValuesAndEmails() throws {
        var redaction = PersonalDataRedaction(key: Self.key)
        let event = Self.event(.httpExchange(exchange: HTTPExchange(method: "GET",
            url: "http://x/lookup?email=bob%40example.org&resource=news", parameters: ["userId": "U-77", "Zip_Code": "94105", "username": "bob smith"],
            status: 200, responseBody: "<user><householdID>hh-bob</householdID><name>Bob</name></user>", failure: nil, durationMs: 1)))
        redaction.learn(from: event)
        guard case .httpExchange(let exchange) = redaction.redact(event).kind else { throw CancellationError() }
        #expect(exchange.parameters["userId"] == redaction.standIn(for: "U-77", as: .userID))
        #expect(exchange.parameters["Zip_Code"] == "[ZIP removed]")
        #expect(exchange.parameters["username"] == redaction.standIn(for: "bob smith", as: .username))
        #expect(!exchange.url.contains("bob%40example.org") && exchange.url.contains("resource=news"))
        // The same address written otherwise is the same person
        #expect(redaction.redact("mail from Bob@Example.org") == "mail from \(redaction.standIn(for: "bob@example.org", as: .email))")
        #expect(exchange.url.contains(redaction.standIn(for: "bob@example.org", as: .email)))
        #expect(exchange.responseBody == "<user><householdID>\(redaction.standIn(for: "hh-bob", as: .householdID))</householdID><name>Bob</name></user>")
    }

    /// Issue #27 item 14: a personal value named only in free text (an error message, a description, a page's text)
    /// survived every export.
    @Test("a value named in free text (name=value, name: value, JSON inside a string) is learned and replaced everywhere")
    func valuesNamedInFreeText() throws {
        let events = [
            Self.event(.error(code: "X", message: "MVPD said: subscriberId=sub-777 is not entitled; userID: U-4242.")),
            Self.event(.callback(callback: .tokenRequestFailed(resource: "news", errorCode: "E",
                errorDescription: #"{"accountId":"acct-99","reason":"the user signed in twice"}"#)), sequence: 2),
            Self.event(.error(code: "Y", message: "retry for sub-777 and acct-99 failed"), sequence: 3),
        ]
        var redaction = PersonalDataRedaction(key: Self.key)
        redaction.learn(from: events)
        let text = String(decoding: try EntitlementEvent.Wire.ndjson(events.map { redaction.redact($0) }), as: UTF8.self)
        for value in ["sub-777", "U-4242", "acct-99"] { #expect(!text.contains(value), "still holds \(value): \(text)") }
        #expect(text.contains("subscriberId=\(redaction.standIn(for: "sub-777", as: .userID))"))
        // Words that merely follow a personal name without `=` or `:` are not taken for values.
        #expect(text.contains("the user signed in twice") && text.contains("is not entitled"))
    }

    @Test("a storage's token GUIDs and user metadata are learned")
    func learnsFromStorage() {
        var storage = TokenStorage()
        storage.storeAuthentication(requestor: "REF30", mvpd: "Dish", authnToken: "not a token",
            userMeta: #"{"data":{"zip":["60601"],"householdID":"hh-carol"}}"#)
        var redaction = PersonalDataRedaction(key: Self.key)
        redaction.learn(from: storage)
        #expect(redaction.redact("carol lives at 60601 in hh-carol") == "carol lives at [ZIP removed] in "
            + redaction.standIn(for: "hh-carol", as: .householdID))
    }
}
