import AccessEnabler
import Foundation
import HistoryTestSupport
import PassTestSupport
import Testing
@testable import PassHistory

/// `HistoryFilter.matches(_:)` (in memory, what the live feed filters with) against the history's own query (the
/// filter's SQL, answered through SQLite's indexes), over generated events and generated filters.
@Suite("HistoryFilter in memory")
struct HistoryFilterMatchingTests {

    static let requestors: [String?] = [nil, "REF30", "SPORTS1", "NBC"]
    static let mvpds: [String?] = [nil, "Cablevision", "Dish", "Comcast_SSO", "Télé"]
    /// How people type them: any ASCII case (which must match), and other letters in another case (which must not).
    static let typedRequestors = ["REF30", "ref30", "Sports1", "sports1", "NBC", "nbc", "nobody"]
    static let typedMvpds = ["Cablevision", "cablevision", "DISH", "dish", "comcast_sso", "Télé", "TÉLÉ", "télé"]
    static let words = ["getAuthorization", "GETAUTHENTICATION", "setToken", "not authorized", "100%", "a_b", "Ünïcode", "ref30"]
    static let statuses: [Int?] = [nil, 200, 204, 302, 404, 499, 500, 503]

    struct Session {
        var id = UUID()
        var deviceID: String
        var app: AppIdentity
        var sequence = 0
    }

    static func sessions(_ random: inout SeededRandom) -> [Session] {
        (0..<6).map { index in
            Session(deviceID: "device-\(index % 3)",
                app: AppIdentity(bundleID: ["com.a.ios", "com.b.tv", "com.c.web"][Int.random(in: 0..<3, using: &random)], teamID: "T\(index)"))
        }
    }

    static func kind(_ random: inout SeededRandom) -> EntitlementEvent.Kind {
        let word = words.randomElement(using: &random)!
        switch Int.random(in: 0..<7, using: &random) {
        case 0: return .apiCall(name: word, arguments: ["k": word])
        case 1: return .stateChanged(flow: "authorization", from: "idle", to: word)
        case 2:
            let status = statuses.randomElement(using: &random)!
            return .httpExchange(exchange: HTTPExchange(method: "GET", url: "http://127.0.0.1:8081/api/v1/\(word)", parameters: [:],
                status: status, responseBody: nil, failure: status == nil ? "timeout" : nil, durationMs: 3))
        case 3: return .storageChanged(domain: "TEAM", change: word)
        case 4: return .callback(callback: .setAuthenticationStatus(status: 1, errorCode: word))
        case 5: return .tracking(event: .authenticationDetection, data: [word])
        default: return .error(code: "N000", message: word)
        }
    }

    static func events(_ count: Int, sessions: inout [Session], start: Date, _ random: inout SeededRandom) -> [EntitlementEvent] {
        (0..<count).map { index in
            let which = Int.random(in: 0..<sessions.count, using: &random)
            sessions[which].sequence += 1
            let session = sessions[which]
            return EntitlementEvent(sequence: session.sequence, timestamp: start.addingTimeInterval(Double(index) * 0.25),
                sessionID: session.id, deviceID: session.deviceID, app: session.app,
                requestorID: requestors.randomElement(using: &random)!, mvpdID: mvpds.randomElement(using: &random)!,
                kind: kind(&random))
        }
    }

    static func filter(_ random: inout SeededRandom, sessions: [Session], start: Date, span: Double) -> HistoryFilter {
        var filter = HistoryFilter()
        let pick = { (random: inout SeededRandom) in Int.random(in: 0..<5, using: &random) == 0 }
        if pick(&random) { filter.sessionID = sessions.randomElement(using: &random)!.id }
        if pick(&random) { filter.deviceID = ["device-", "DEVICE-", "Device-"].randomElement(using: &random)! + "\(Int.random(in: 0..<4, using: &random))" }
        if pick(&random) { filter.bundleID = ["com.a.ios", "COM.B.TV", "com.B.tv", "com.none"].randomElement(using: &random)! }
        if pick(&random) { filter.requestorID = typedRequestors.randomElement(using: &random)! }
        if pick(&random) { filter.mvpdID = typedMvpds.randomElement(using: &random)! }
        if pick(&random) { filter.kinds = Set(EventKind.allCases.filter { _ in Bool.random(using: &random) }) }
        if pick(&random) { filter.text = ["authoriz", "GETAUTH", "100%", "a_b", "_", "ünï", "Ü", "ref30 "].randomElement(using: &random)! }
        if pick(&random) { filter.from = start.addingTimeInterval(Double.random(in: 0...span, using: &random)) }
        if pick(&random) { filter.until = start.addingTimeInterval(Double.random(in: 0...span, using: &random)) }
        if pick(&random) { filter.httpStatus = HistoryFilter.StatusClass.allCases.randomElement(using: &random)! }
        if pick(&random) {
            // Exact codes (404), ranges (400-499, 0-199), and ranges no stored status falls in.
            let low = [0, 200, 204, 300, 404, 450, 500, 600].randomElement(using: &random)!
            filter.httpStatusCodes = low...(low + [0, 0, 99, 300].randomElement(using: &random)!)
        }
        if pick(&random) { filter.excludedRequestorIDs = Set(typedRequestors.filter { _ in Int.random(in: 0..<3, using: &random) == 0 }) }
        if pick(&random) { filter.excludedMvpdIDs = Set(typedMvpds.filter { _ in Int.random(in: 0..<3, using: &random) == 0 }) }
        if pick(&random) { filter.excludedKinds = Set(EventKind.allCases.filter { _ in Int.random(in: 0..<3, using: &random) == 0 }) }
        if pick(&random) { filter.excludedBundleIDs = Set(["com.a.ios", "COM.C.WEB"].filter { _ in Bool.random(using: &random) }) }
        return filter
    }

    @Test("matches(_:) selects exactly the events the history's query selects", arguments: HistoryBackend.allCases, [1, 2, 3] as [UInt64])
    func agreesWithTheDatabase(backend: HistoryBackend, seed: UInt64) async throws {
        var random = SeededRandom(seed: seed)
        var sessions = Self.sessions(&random)
        let start = Date(timeIntervalSinceReferenceDate: 780_000_000.125)
        // Several blocks of the index (256 events each), in a few batches.
        let events = Self.events(1500, sessions: &sessions, start: start, &random)
        try await withHistory(backend) { history in
            for offset in stride(from: 0, to: events.count, by: 400) {
                try await history.append(Array(events[offset..<min(offset + 400, events.count)]))
            }
            let stored = try await history.page(matching: .all, limit: 10_000).events
            try #require(stored.count == events.count)
            // The rows the live feed reads carry the same facts as the decoded events.
            let rows = try await history.newRawEvents(after: 0, upTo: stored.last!.id, limit: 10_000).events
            #expect(rows.map(\.id) == stored.map(\.id))
            #expect(rows.map(\.facts) == stored.map(EventFacts.init))
            var nonTrivial = 0
            for _ in 0..<150 {
                let filter = Self.filter(&random, sessions: sessions, start: start, span: Double(events.count) * 0.25)
                let expected = try await history.page(matching: filter, limit: 10_000).events.map(\.id)
                let inMemory = stored.filter { filter.matches($0) }.map(\.id)
                #expect(inMemory == expected, "seed \(seed), filter \(filter)")
                let onRows = rows.filter { filter.matches($0.facts) }.map(\.id)
                #expect(onRows == expected, "rows, seed \(seed), filter \(filter)")
                if !expected.isEmpty && expected.count < stored.count { nonTrivial += 1 }
            }
            // The generated filters must actually split the events, or the comparison proves little.
            #expect(nonTrivial > 50)
        }
    }

    @Test("IDs match in any ASCII case, as SQLite's NOCASE: mvpd:dish finds Dish, TÉLÉ does not find Télé",
        arguments: HistoryBackend.allCases)
    func idsIgnoreASCIICase(backend: HistoryBackend) async throws {
        let app = AppIdentity(bundleID: "com.a.ios", teamID: "T")
        let events = [("Dish", "REF30", 403), ("Télé", "SPORTS1", 200), ("Cablevision", "REF30", 404)].enumerated().map { index, row in
            EntitlementEvent(sequence: index, timestamp: Date(timeIntervalSince1970: 1_000_000 + Double(index)), sessionID: UUID(),
                deviceID: "Device-1", app: app, requestorID: row.1, mvpdID: row.0,
                kind: .httpExchange(exchange: HTTPExchange(method: "GET", url: "http://x/y", parameters: [:], status: row.2,
                    responseBody: nil, failure: nil, durationMs: 1)))
        }
        try await withHistory(backend) { history in
            try await history.append(events)
            func mvpds(_ filter: HistoryFilter) async throws -> [String?] {
                try await history.page(matching: filter).events.map(\.event.mvpdID)
            }
            #expect(try await mvpds(HistoryFilter(mvpdID: "dish")) == ["Dish"])
            #expect(try await mvpds(HistoryFilter(requestorID: "ref30")) == ["Dish", "Cablevision"])
            #expect(try await mvpds(HistoryFilter(mvpdID: "TÉLÉ")).isEmpty)
            #expect(try await mvpds(HistoryFilter(mvpdID: "tÉlÉ".replacingOccurrences(of: "É", with: "é"))) == ["Télé"])
            #expect(try await mvpds(HistoryFilter(deviceID: "DEVICE-1")).count == 3)
            var codes = HistoryFilter()
            codes.httpStatusCodes = 403...403
            #expect(try await mvpds(codes) == ["Dish"])
            codes.httpStatusCodes = 400...499
            #expect(try await mvpds(codes) == ["Dish", "Cablevision"])
            var excluded = HistoryFilter()
            excluded.excludedMvpdIDs = ["DISH", "cablevision"]
            #expect(try await mvpds(excluded) == ["Télé"])
        }
    }

    @Test("text matching is SQLite's LIKE: ASCII case folded, % and _ literal, other letters exact")
    func textIsLike() {
        #expect(HistoryFilter.likeContains("call getAuthorization()", "GETauth"))
        #expect(HistoryFilter.likeContains("100% done", "100%"))
        #expect(!HistoryFilter.likeContains("1000 done", "100%"))
        #expect(!HistoryFilter.likeContains("axb", "a_b"))
        #expect(!HistoryFilter.likeContains("ÜNÏ", "ünï"))
        #expect(HistoryFilter.likeContains("anything", ""))
    }
}
