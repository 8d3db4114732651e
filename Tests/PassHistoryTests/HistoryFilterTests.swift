import AccessEnabler
import Foundation
import HistoryTestSupport
import Testing
@testable import PassHistory

@Suite("HistoryFilter")
struct HistoryFilterTests {
    /// Two sessions: A (device-A, REF30, flow of 8 events), B (device-B, another Programmer, 3 events).
    static func seed(_ history: any EventHistory) async throws -> (a: [EntitlementEvent], b: [EntitlementEvent]) {
        var a = EventFactory()
        var b = EventFactory(
            deviceID: "device-B", app: AppIdentity(bundleID: "com.other.tv", teamID: "TEAM9", platform: .tvOS),
            requestorID: "NBC", start: Date(timeIntervalSinceReferenceDate: 780_000_100))
        let eventsA = a.flow()
        let eventsB = [
            b.make(.apiCall(name: "getAuthentication", arguments: [:])),
            b.make(.callback(callback: .setAuthenticationStatus(status: 0, errorCode: "User Not Authenticated Error"))),
            b.make(.httpExchange(exchange: HTTPExchange(
                method: "POST", url: "http://127.0.0.1:8081/reggie/v1/NBC/regcode", parameters: [:], status: nil,
                responseBody: nil, failure: "timeout", durationMs: 30_000)), mvpd: "Comcast_SSO"),
        ]
        try await history.append(eventsA)
        try await history.append(eventsB)
        return (eventsA, eventsB)
    }

    func matching(_ filter: HistoryFilter, in history: any EventHistory) async throws -> [EntitlementEvent] {
        try await history.page(matching: filter, limit: 1000).events.map(\.event)
    }

    @Test("each criterion selects exactly its events", arguments: HistoryBackend.allCases)
    func eachCriterion(backend: HistoryBackend) async throws {
        try await withHistory(backend) { history in
            let (a, b) = try await Self.seed(history)
            #expect(try await matching(.all, in: history) == a + b)
            #expect(try await matching(HistoryFilter(sessionID: b[0].sessionID), in: history) == b)
            #expect(try await matching(HistoryFilter(deviceID: "device-A"), in: history) == a)
            #expect(try await matching(HistoryFilter(requestorID: "NBC"), in: history) == b)
            #expect(try await matching(HistoryFilter(mvpdID: "Cablevision"), in: history) == Array(a[4...]))
            #expect(try await matching(HistoryFilter(kinds: [.callback]), in: history) == [a[3], a[5], b[1]])
            #expect(try await matching(HistoryFilter(kinds: [.error, .tracking]), in: history) == [a[6], a[7]])
            #expect(try await matching(HistoryFilter(kinds: [.httpExchange]), in: history) == [a[2], b[2]])
            #expect(try await matching(HistoryFilter(kinds: [.stateChanged, .storageChanged, .apiCall]), in: history)
                == [a[0], a[1], a[4], b[0]])
        }
    }

    @Test("a device or app filter finds the newest pages of a busy device and of one seen twice", arguments: HistoryBackend.allCases)
    func deviceAndAppFiltersEitherWay(backend: HistoryBackend) async throws {
        try await withHistory(backend) { history in
            // The demo device: 300 events of one app; a device seen once: 2 events (under 1% of the history).
            var busy = EventFactory()
            var rare = EventFactory(deviceID: "device-rare", app: AppIdentity(bundleID: "com.rare.app", teamID: "T2"))
            let busyEvents = (0..<300).map { busy.make(.apiCall(name: "call\($0)", arguments: [:])) }
            let rareEvents = [rare.make(.apiCall(name: "rare0", arguments: [:])), rare.make(.apiCall(name: "rare1", arguments: [:]))]
            try await history.append(Array(busyEvents[..<150]) + rareEvents)
            try await history.append(Array(busyEvents[150...]))
            let total = try await history.eventCount
            #expect(total == 302)
            var byApp = HistoryFilter()
            byApp.bundleID = "com.rare.app"
            for filter in [HistoryFilter(deviceID: "device-rare"), byApp] {
                #expect(try await history.latestPage(matching: filter, limit: 10).events.map(\.event) == rareEvents.reversed())
            }
            byApp.bundleID = busy.app.bundleID
            for filter in [HistoryFilter(deviceID: "device-A"), byApp] {
                let page = try await history.latestPage(matching: filter, limit: 100)
                #expect(page.events.map(\.event) == Array(busyEvents.suffix(100).reversed()))
                let raw = try await history.rawPage(matching: filter, limit: 100)
                #expect(raw.events.ids == page.events.map(\.id))
            }
        }
    }

    @Test("text search looks in the summary, case-insensitively, with % and _ taken literally", arguments: HistoryBackend.allCases)
    func textSearch(backend: HistoryBackend) async throws {
        try await withHistory(backend) { history in
            let (a, b) = try await Self.seed(history)
            #expect(try await matching(HistoryFilter(text: "setauthenticationstatus"), in: history) == [a[5], b[1]])
            #expect(try await matching(HistoryFilter(text: "timeout"), in: history) == [b[2]])
            #expect(try await matching(HistoryFilter(text: "config/REF30 → 200"), in: history) == [a[2]])
            #expect(try await matching(HistoryFilter(text: "%"), in: history).isEmpty)
            #expect(try await matching(HistoryFilter(text: "_"), in: history).isEmpty)
            #expect(try await matching(HistoryFilter(text: ""), in: history).count == a.count + b.count)
        }
    }

    @Test("text and IDs match whatever the case of ASCII letters only, as SQLite's LIKE and NOCASE do",
        arguments: HistoryBackend.allCases)
    func asciiCaseOnly(backend: HistoryBackend) async throws {
        try await withHistory(backend) { history in
            var factory = EventFactory(deviceID: "Dévice-É", requestorID: "Éclair")
            let events = [factory.make(.error(code: "E1", message: "Émission refusée")), factory.make(.apiCall(name: "plain", arguments: [:]))]
            try await history.append(events)
            let cases: [(HistoryFilter, [EntitlementEvent])] = [
                // ASCII letters in any case; É and é stay different letters.
                (HistoryFilter(text: "ÉMISSION REFUS"), [events[0]]), (HistoryFilter(text: "émission"), []),
                (HistoryFilter(text: "REFUSÉE"), []), (HistoryFilter(requestorID: "ÉCLAIR"), events), (HistoryFilter(requestorID: "éclair"), []),
                (HistoryFilter(deviceID: "DéVICE-É"), events), (HistoryFilter(deviceID: "dÉvice-É"), []),
            ]
            for (filter, expected) in cases {
                #expect(try await matching(filter, in: history) == expected, "\(filter)")
                // The live feed's in-memory rule agrees.
                #expect(events.filter { filter.matches(StoredEvent(id: 1, summary: $0.summary, event: $0)) } == expected, "in memory: \(filter)")
            }
        }
    }

    @Test("a time range keeps [from, until)", arguments: HistoryBackend.allCases)
    func timeRange(backend: HistoryBackend) async throws {
        try await withHistory(backend) { history in
            let (a, b) = try await Self.seed(history)
            #expect(try await matching(HistoryFilter(from: a[2].timestamp, until: a[5].timestamp), in: history) == [a[2], a[3], a[4]])
            #expect(try await matching(HistoryFilter(from: b[0].timestamp), in: history) == b)
            #expect(try await matching(HistoryFilter(until: a[1].timestamp), in: history) == [a[0]])
        }
    }

    @Test("criteria combine, and paging follows the filter", arguments: HistoryBackend.allCases)
    func combinedAndPaged(backend: HistoryBackend) async throws {
        try await withHistory(backend) { history in
            let (a, _) = try await Self.seed(history)
            let filter = HistoryFilter(deviceID: "device-A", mvpdID: "Cablevision", kinds: [.callback, .tracking, .error])
            let first = try await history.page(matching: filter, limit: 2)
            #expect(first.events.map(\.event) == [a[5], a[6]])
            let second = try await history.page(matching: filter, after: first.nextCursor, limit: 2)
            #expect(second.events.map(\.event) == [a[7]])
            #expect(second.nextCursor == nil)
        }
    }
}

@Suite("History retention")
struct HistoryRetentionTests {
    @Test("prune keeps the newest events up to the count and drops those past the age", arguments: HistoryBackend.allCases)
    func prunesByCountAndAge(backend: HistoryBackend) async throws {
        try await withHistory(backend) { history in
            var factory = EventFactory()
            let events = factory.flow() + factory.flow()
            try await history.append(events)
            let total = try await history.eventCount
            #expect(try await history.prune(.init(maxEvents: 5, maxAge: .seconds(3600 * 24 * 365 * 100))) == total - 5)
            #expect(try await history.eventCount == 5)
            let kept = try await history.page(limit: 10).events.map(\.event.sequence)
            #expect(kept == Array(events.suffix(5)).map(\.sequence))
            // Everything older than a day goes, sessions left empty too
            #expect(try await history.prune(.init(maxEvents: 100, maxAge: .seconds(1)), now: Date().addingTimeInterval(86_400 * 365 * 50)) == 5)
            #expect(try await history.sessions().isEmpty)
        }
    }
}
