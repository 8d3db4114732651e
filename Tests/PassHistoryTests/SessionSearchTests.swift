import AccessEnabler
import Foundation
import HistoryTestSupport
import GRDB
import PassHistoryPostgres
import Testing
@testable import PassHistory

/// The session search a support person starts a ticket with: whatever the ticket names, in any case, as a prefix.
@Suite("Session search")
struct SessionSearchTests {
    static let guid = "DAC9E095-5B1E-4E0B-9C55-1F6A5D1B7A10"
    static let hash = "9f86d081884c7d659a2feaa0c55ad015"

    /// A signed-in News session on one phone (user ID sent as `session_guid`, tracking hash, visitor ID), and a
    /// Sports One session on another device that was denied at Dish.
    static func history(_ backend: HistoryBackend, _ body: (any EventHistory, _ news: UUID, _ sports: UUID) async throws -> Void)
        async throws
    {
        var news = EventFactory(deviceID: "5C0FFEE1-AAAA", requestorID: "REF30")
        var sports = EventFactory(deviceID: "BEEF0002-BBBB", app: AppIdentity(bundleID: "com.example.news.sports", teamID: "TEAM1234"),
            requestorID: "SPORTS1")
        let events = [
            news.make(.apiCall(name: "setOptions", arguments: ["visitorID": "visitor-Alpha-42"])),
            news.make(.stateChanged(flow: "authentication", from: "idle", to: "awaitingLogin(Cablevision)"), mvpd: "Cablevision"),
            news.make(.callback(callback: .setAuthenticationStatus(status: 1, errorCode: nil)), mvpd: "Cablevision"),
            news.make(.tracking(event: .authenticationDetection, data: ["YES", "Cablevision", hash, "NO", "iPhone", "iOS", "17"]),
                mvpd: "Cablevision"),
            news.make(.httpExchange(exchange: HTTPExchange(method: "POST", url: "http://127.0.0.1:8081/adobe-services/shortAuthorize",
                parameters: ["session_guid": guid, "resource_id": "news"], status: 200, responseBody: nil, failure: nil, durationMs: 3)),
                mvpd: "Cablevision"),
            sports.make(.callback(callback: .tokenRequestFailed(resource: "sports", errorCode: "User Not Authorized Error",
                errorDescription: nil)), mvpd: "Dish"),
        ]
        try await withHistory(backend) { history in
            try await history.append(events)
            try await body(history, news.sessionID, sports.sessionID)
        }
    }

    @Test("the user ID as the Tokens page shows it, any prefix, any case, ellipsis and all, finds the session and says where", arguments: HistoryBackend.allCases)
    func userIDPrefix(backend: HistoryBackend) async throws {
        try await Self.history(backend) { history, news, _ in
            for typed in ["DAC9E095…", "dac9e0", "DAC9E095-5B1E", Self.guid.lowercased()] {
                let found = try await history.sessions(matching: typed)
                #expect(found.map(\.session.id) == [news], "\(typed)")
                let match = try #require(found.first?.matches.first)
                #expect(match.field == .userID)
                #expect(match.before.isEmpty && match.before + match.matched + match.after == Self.guid)
                #expect(match.matched.lowercased() == SessionSearch.words(typed)[0])
            }
            #expect(try await history.sessions(matching: "095-5B1E").isEmpty, "a prefix, not any substring")
        }
    }

    @Test("tracking hash, visitor ID, device, app part, Programmer and MVPD each find their session; every word must match", arguments: HistoryBackend.allCases)
    func everyField(backend: HistoryBackend) async throws {
        try await Self.history(backend) { history, news, sports in
            let cases: [(String, SessionField, [UUID])] = [
                ("9F86D0", .trackingHash, [news]), ("VISITOR-alpha", .visitorID, [news]), ("5c0ffee1", .deviceID, [news]),
                ("sports", .app, [sports]), ("ref30", .programmer, [news]), ("dish", .mvpd, [sports]),
            ]
            for (typed, field, sessions) in cases {
                let found = try await history.sessions(matching: typed)
                #expect(found.map(\.session.id) == sessions, "\(typed)")
                #expect(found.first?.matches.map(\.field) == [field], "\(typed)")
            }
            // "news" starts a part of both bundle IDs; a second word narrows to the session matching both.
            #expect(Set(try await history.sessions(matching: "news").map(\.session.id)) == [news, sports])
            let both = try await history.sessions(matching: "news cablev")
            #expect(both.map(\.session.id) == [news])
            #expect(both.first?.matches.map(\.field) == [.app, .mvpd])
            #expect(both.first?.matches.first.map { $0.before + "[" + $0.matched + "]" + $0.after } == "com.example.[news].ios")
        }
    }

    @Test("an alias another system knows (the backend's username for a user ID) finds the session under its own name", arguments: HistoryBackend.allCases)
    func usernameAlias(backend: HistoryBackend) async throws {
        try await Self.history(backend) { history, news, _ in
            let alias = SessionAlias(shownField: .username, shown: "carol", field: .userID, value: Self.guid.lowercased())
            let found = try await history.sessions(matching: "CAR", aliases: [alias])
            #expect(found.map(\.session.id) == [news])
            #expect(found.first?.matches.first?.field == .username)
            #expect(found.first?.matches.first?.matched == "car")
        }
    }

    @Test("the session row carries the latest MVPD, the user ID and the outcome", arguments: HistoryBackend.allCases)
    func listColumns(backend: HistoryBackend) async throws {
        try await Self.history(backend) { history, news, sports in
            let newsRow = try #require(try await history.session(news))
            #expect(newsRow.mvpdID == "Cablevision")
            #expect(newsRow.userID == Self.guid)
            #expect(newsRow.outcome(at: Date()) == .signedIn)
            #expect(try #require(try await history.session(sports)).outcome(at: Date()) == .denied)
        }
    }

    @Test("the visitor IDs each session's app set read back per session, sorted, once each; sessions without one left out",
        arguments: HistoryBackend.allCases)
    func visitorIDs(backend: HistoryBackend) async throws {
        try await Self.history(backend) { history, news, sports in
            var factory = EventFactory(sessionID: news)
            factory.sequence = 100
            try await history.append([factory.make(.apiCall(name: "setOptions", arguments: ["visitorID": "visitor-Beta"])),
                factory.make(.apiCall(name: "setOptions", arguments: ["visitorID": "visitor-Alpha-42"]))])
            let values = try await history.values(of: .visitorID, sessions: [news, sports, UUID()])
            #expect(values == [news: ["visitor-Alpha-42", "visitor-Beta"]])
            #expect(try await history.values(of: .visitorID, sessions: []).isEmpty)
        }
    }

    @Test("a deleted session leaves no search entries behind", arguments: HistoryBackend.allCases)
    func deletionCascades(backend: HistoryBackend) async throws {
        try await Self.history(backend) { history, news, _ in
            try await history.deleteSession(news)
            #expect(try await history.sessions(matching: "dac9").isEmpty)
            // The user ID's entries are gone from the index itself, not just unreachable.
            let left = if let sqlite = history as? HistoryDatabase {
                try await sqlite.writer.read { db in
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM session_term WHERE field = 'userID'") ?? -1
                }
            } else {
                try await #require(history as? PostgresHistory).searchEntryCount(field: .userID)
            }
            #expect(left == 0)
        }
    }

    @Test("a search reads the index's primary key, never the events")
    func usesTheIndex() async throws {
        try await withHistory { history in
            let plan = try await history.writer.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT sessionKey, field, value, offset FROM session_term WHERE term >= ? AND term < ?",
                    arguments: ["dac9", SessionSearch.upperBound("dac9")]).map { $0["detail"] as String }
            }
            #expect(plan.contains { $0.contains("SEARCH session_term USING PRIMARY KEY (term>? AND term<?)") }, "\(plan)")
        }
    }
}

/// The one rule for a session's outcome, event by event.
struct SessionOutcomeTests {
    var factory = EventFactory()

    func outcome(_ kinds: [EntitlementEvent.Kind], at seconds: Double = 5) -> SessionOutcome {
        var factory = factory
        var tracker = SessionOutcome.Tracker()
        for kind in kinds { tracker.apply(factory.make(kind)) }
        return tracker.outcome(at: factory.start.addingTimeInterval(seconds))
    }

    @Test func signedInDeniedSignedOutAndError() {
        #expect(outcome([.callback(callback: .setAuthenticationStatus(status: 1, errorCode: nil))]) == .signedIn)
        #expect(outcome([.callback(callback: .setToken(token: "t", resource: "news"))]) == .signedIn)
        #expect(outcome([.callback(callback: .tokenRequestFailed(resource: "news", errorCode: "User Not Authorized Error", errorDescription: nil))]) == .denied)
        #expect(outcome([.callback(callback: .tokenRequestFailed(resource: "news", errorCode: "Handled User Not Authorized Error", errorDescription: nil))]) == .denied)
        #expect(outcome([.callback(callback: .setAuthenticationStatus(status: 1, errorCode: nil)),
                         .callback(callback: .setAuthenticationStatus(status: 0, errorCode: "User Not Authenticated Error"))]) == .signedOut)
        #expect(outcome([.callback(callback: .setAuthenticationStatus(status: 0, errorCode: "Provider Not Selected Error"))]) == .signedOut)
        #expect(outcome([.callback(callback: .setAuthenticationStatus(status: 0, errorCode: "Provider not Available Error"))]) == .error)
        #expect(outcome([.callback(callback: .tokenRequestFailed(resource: "news", errorCode: "Generic Authorization Error", errorDescription: nil))]) == .error)
        #expect(outcome([.callback(callback: .setRequestorComplete(status: 0))]) == .error)
        #expect(outcome([.apiCall(name: "setRequestor", arguments: [:])]) == .started)
    }

    @Test func aFlowWaitingLongerThanThirtySecondsIsStuck() {
        let waiting: [EntitlementEvent.Kind] = [.stateChanged(flow: "authentication", from: "idle", to: "awaitingLogin(Dish)")]
        #expect(outcome(waiting, at: 10) == .inProgress)
        #expect(outcome(waiting, at: 40) == .stuck)
        #expect(outcome(waiting + [.callback(callback: .setAuthenticationStatus(status: 1, errorCode: nil))], at: 400) == .signedIn)
    }
}
