import AccessEnabler
import Foundation
import HistoryTestSupport
import PassHistory
import PassTestSupport
import Testing

/// The history through the API: filters, paging, exports, ingest from other processes, and the live feed.
@Suite(.serialized)
struct EventsAPITests {
    @Test(arguments: HistoryBackend.allCases) func filtersPageAndSayHowManyAreHidden(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try await fixture.signIn()
            try await fixture.waitForEvents(atLeast: 20)
            let all = await fixture.get("/api/events?limit=5").json
            let total = try #require(all["total"] as? Int)
            #expect(all["matching"] as? Int == total)
            let newest = try #require(all["events"] as? [[String: Any]])
            #expect(newest.count == 5)
            let ids = newest.compactMap { $0["id"] as? Int }
            #expect(ids == ids.sorted(by: >))
            // The next page continues below the last one
            let next = await fixture.get("/api/events?limit=5&before=\(ids.last!)").json["events"] as? [[String: Any]] ?? []
            #expect((next.first?["id"] as? Int ?? 0) < ids.last!)
            // A filter narrows and reports the count it kept
            let callbacks = await fixture.get("/api/events?q=event:callback%20programmer:REF30").json
            let matching = try #require(callbacks["matching"] as? Int)
            #expect(matching > 0 && matching < total)
            #expect((callbacks["events"] as? [[String: Any]] ?? []).allSatisfy { $0["kind"] as? String == "callback" })
            let http = await fixture.get("/api/events?q=event:httpExchange%20status:2xx").json["events"] as? [[String: Any]] ?? []
            #expect(!http.isEmpty && http.allSatisfy { ($0["http"] as? [String: Any])?["status"] as? Int == 200 })
            let bad = await fixture.get("/api/events?q=status:teapot")
            #expect(bad.status == 400)
            #expect(bad.json["error"] as? String == "invalid_filter")
        }
    }

    @Test(arguments: HistoryBackend.allCases) func pagesCarryTheStoredEventsAsTheWireFormWithTheirHTTPFields(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try await fixture.signIn()
            try await fixture.waitForEvents(atLeast: 20)
            let answer = await fixture.get("/api/events?limit=500")
            let items = try #require(answer.json["events"] as? [[String: Any]])
            let stored = try await fixture.console.history.latestPage(limit: 500).events
            #expect(items.count == stored.count)
            let decoder = EntitlementEvent.Wire.decoder()
            for (item, expected) in zip(items, stored) {
                #expect(item["id"] as? Int == Int(expected.id))
                #expect(item["summary"] as? String == expected.summary)
                #expect(item["kind"] as? String == EventKind(expected.event.kind).rawValue)
                let eventJSON = try JSONSerialization.data(withJSONObject: try #require(item["event"]))
                let event = try decoder.decode(EntitlementEvent.self, from: eventJSON)
                #expect(event.kind == expected.event.kind)
                #expect(abs(event.timestamp.timeIntervalSince(expected.event.timestamp)) < 0.001)
                #expect((item["event"] as? [String: Any])?["timestamp"] is String)
                if case .httpExchange(let exchange) = expected.event.kind {
                    let http = try #require(item["http"] as? [String: Any])
                    #expect(http["method"] as? String == exchange.method)
                    #expect(http["url"] as? String == exchange.url)
                    #expect(http["status"] as? Int == exchange.status)
                } else {
                    #expect(item["http"] is NSNull)
                }
            }
        }
    }

    @Test(arguments: HistoryBackend.allCases) func exportsHoldWhatTheFilterShowsAndDecodeBack(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try await fixture.signIn()
            try await fixture.waitForEvents(atLeast: 20)
            let ndjson = await fixture.get("/api/events/export?format=ndjson&q=event:callback")
            #expect(ndjson.header("Content-Type") == "application/x-ndjson")
            // The first line says what the file is and what personal data it left out; every other line is an event.
            let lines = ndjson.text.split(separator: "\n")
            #expect(lines.first?.hasPrefix(#"{"passconsoleExport":"#) == true)
            let decoder = EntitlementEvent.Wire.decoder()
            let events = try lines.dropFirst().map { try decoder.decode(EntitlementEvent.self, from: Data($0.utf8)) }
            let stored = try await fixture.console.history.page(matching: HistoryFilter(kinds: [.callback]), limit: 1000).events.map(\.event)
            #expect(events.count == stored.count)
            #expect(zip(events, stored).allSatisfy { $0.sessionID == $1.sessionID && $0.sequence == $1.sequence && $0.kind == $1.kind })
            let csv = await fixture.get("/api/events/export?format=csv&q=event:callback")
            let rows = csv.text.split(separator: "\r\n")
            #expect(rows.first?.hasPrefix("# PassConsole events export.") == true)
            #expect(rows.dropFirst().first == "id,time,session,app,platform,device,programmer,mvpd,kind,summary")
            #expect(rows.count == stored.count + 2)
            let har = await fixture.get("/api/network/har").json
            let log = try #require(har["log"] as? [String: Any])
            #expect(log["version"] as? String == "1.2")
            let entries = try #require(log["entries"] as? [[String: Any]])
            let exchanges = try await fixture.console.history.count(matching: HistoryFilter(kinds: [.httpExchange]))
            #expect(entries.count == exchanges)
            #expect(entries.allSatisfy { ($0["request"] as? [String: Any])?["url"] is String && $0["time"] is Double })
        }
    }

    @Test(arguments: HistoryBackend.allCases) func anotherProcessReportsThroughTheIngestEndpointWithoutLosingOrDoublingEvents(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try fixture.console.start()
            // Given an app of another process with a reporter pointed at the console
            let session = UUID()
            let app = AppIdentity(bundleID: "com.remote.app", teamID: "REMOTE1")
            let events = (0..<250).map { i in
                EntitlementEvent(sequence: i, timestamp: Date(), sessionID: session, deviceID: "remote-device", app: app,
                    requestorID: "REF30", mvpdID: "Dish", kind: .apiCall(name: "call\(i)", arguments: [:]))
            }
            let reporter = EventReporter(console: URL(string: fixture.console.baseURL)!, batchSize: 100, interval: .milliseconds(20))
            for event in events { reporter.add(event) }
            // When it finishes
            await reporter.finish()
            // Then every event is stored once, in its session
            #expect(reporter.sentCount == 250)
            #expect(reporter.droppedCount == 0)
            #expect(try await fixture.console.history.count(matching: HistoryFilter(sessionID: session)) == 250)
            // Sending the same batch again stores nothing new and says so
            let client = TestHTTPClient(baseURL: fixture.console.baseURL)
            let again = try await client.send("POST", "/api/ingest", headers: ["Content-Type": "application/x-ndjson"],
                body: try EntitlementEvent.Wire.ndjson(Array(events.prefix(10))))
            #expect(again.json["accepted"] as? Int == 0)
            #expect(again.json["duplicates"] as? Int == 10)
            // A bad line is named by number; the good ones still count
            var body = try EntitlementEvent.Wire.ndjson([EntitlementEvent(sequence: 900, timestamp: Date(), sessionID: session,
                deviceID: "remote-device", app: app, requestorID: nil, mvpdID: nil, kind: .error(code: "X", message: "y"))])
            body.append(Data("{\"sequence\": \"oops\"}\n".utf8))
            let mixed = try await client.send("POST", "/api/ingest", headers: ["Content-Type": "application/x-ndjson",
                "X-PassConsole-Dropped": "7"], body: body)
            #expect(mixed.json["accepted"] as? Int == 1)
            let rejected = try #require(mixed.json["rejected"] as? [[String: Any]])
            #expect(rejected.first?["line"] as? Int == 2)
            // Drops a reporter could not send are counted where support staff see them
            let overview = try await client.get("/api/overview").json["counts"] as? [String: Any]
            #expect(overview?["ingestDropped"] as? Int == 7)
        }
    }

    /// The reporter's bounded queue: while the console is away the newest `capacity` events wait (the oldest go,
    /// counted), and once it answers they arrive in order, each once, and the console is told how many were dropped.
    @Test func aReporterPastItsBoundKeepsTheNewestAndSaysHowManyWent() async throws {
        try await ConsoleFixture.with { fixture in
            let session = UUID()
            let app = AppIdentity(bundleID: "com.remote.bounded", teamID: "BOUND1")
            // A console port nobody listens on yet: every send fails and the events wait
            let reporter = EventReporter(console: URL(string: "http://127.0.0.1:1")!, capacity: 10, batchSize: 4,
                interval: .milliseconds(10))
            for i in 0..<25 {
                reporter.add(EntitlementEvent(sequence: i, timestamp: Date(), sessionID: session, deviceID: "d", app: app,
                    requestorID: nil, mvpdID: nil, kind: .apiCall(name: "c\(i)", arguments: [:])))
            }
            #expect(reporter.droppedCount == 15)
            #expect(reporter.pendingCount == 10)
            await reporter.finish(timeout: .milliseconds(100))
            // The same events, to a console that answers: a reporter of the same queue bound, fed the same way
            try fixture.console.start()
            let live = EventReporter(console: URL(string: fixture.console.baseURL)!, capacity: 10, batchSize: 4,
                interval: .milliseconds(10))
            for i in 0..<25 {
                live.add(EntitlementEvent(sequence: i, timestamp: Date(), sessionID: session, deviceID: "d", app: app,
                    requestorID: nil, mvpdID: nil, kind: .apiCall(name: "c\(i)", arguments: [:])))
            }
            await live.finish()
            #expect(live.sentCount + live.droppedCount == 25)
            let stored = try await fixture.console.history.page(matching: HistoryFilter(sessionID: session), after: nil, limit: 100).events
            let sequences = stored.map(\.event.sequence)
            #expect(sequences == sequences.sorted(), "in order")
            #expect(Set(sequences).count == sequences.count, "each once")
            #expect(sequences.count == live.sentCount)
            #expect(sequences.last == 24, "the newest always arrive")
            let overview = try await TestHTTPClient(baseURL: fixture.console.baseURL).get("/api/overview").json["counts"] as? [String: Any]
            #expect(overview?["ingestDropped"] as? Int == live.droppedCount)
        }
    }

    @Test(arguments: HistoryBackend.allCases) func aReporterSendsAFewEventsAfterAnIdleSpellWithoutWaitingForAFullBatchOrFinish(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try fixture.console.start()
            let reporter = EventReporter(console: URL(string: fixture.console.baseURL)!, batchSize: 500, interval: .milliseconds(50))
            let app = AppIdentity(bundleID: "com.remote.idle", teamID: "IDLE1")
            func report(_ count: Int, from first: Int) {
                for i in first..<first + count {
                    reporter.add(EntitlementEvent(sequence: i, timestamp: Date(), sessionID: UUID(), deviceID: "d", app: app,
                        requestorID: nil, mvpdID: nil, kind: .apiCall(name: "c\(i)", arguments: [:])))
                }
            }
            func waitUntilSent(_ count: Int) async throws {
                let deadline = ContinuousClock.now + .seconds(TestTime.seconds(20))
                while reporter.sentCount < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            }
            // A few events, far fewer than a batch: sent without finish()
            report(3, from: 0)
            try await waitUntilSent(3)
            #expect(reporter.sentCount == 3)
            // …and again after the sender went idle (it parks when nothing waits)
            try await Task.sleep(for: .milliseconds(300))
            report(2, from: 3)
            try await waitUntilSent(5)
            #expect(reporter.sentCount == 5, "events queued after an idle spell were never sent")
            await reporter.finish()
        }
    }

    @Test func aReporterKeepsOnlyItsNewestEventsWhenTheConsoleIsAwayAndCountsTheRest() async throws {
        // A console that is not there: the port of a server that was started and stopped
        let reporter = EventReporter(console: URL(string: "http://127.0.0.1:9")!, capacity: 10, batchSize: 5, interval: .milliseconds(10))
        let app = AppIdentity(bundleID: "com.remote.app", teamID: "REMOTE1")
        for i in 0..<25 {
            reporter.add(EntitlementEvent(sequence: i, timestamp: Date(), sessionID: UUID(), deviceID: "d", app: app,
                requestorID: nil, mvpdID: nil, kind: .apiCall(name: "c", arguments: [:])))
        }
        #expect(reporter.pendingCount == 10)
        #expect(reporter.droppedCount == 15)
        await reporter.finish(timeout: .milliseconds(300))
        #expect(reporter.sentCount == 0)
        #expect(reporter.lastError != nil)
    }

    @Test("over HTTP a page is answered from the history's read callback: behind the token, errors as JSON, the same bytes as in process", arguments: HistoryBackend.allCases)
    func pagesOverHTTPPassTheDoorAndMatchTheInProcessAnswer(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history, accessToken: "page-token") { fixture in
            try fixture.console.start()
            let session = UUID()
            let app = AppIdentity(bundleID: "com.page.http", teamID: "PAGE1")
            // (Times of now: the console's retention, which runs as it starts, would prune older ones.)
            let now = Date()
            try await fixture.console.history.append((0..<30).map { i in
                EntitlementEvent(sequence: i, timestamp: now.addingTimeInterval(Double(i) - 30), sessionID: session,
                    deviceID: "d", app: app, requestorID: "REF30", mvpdID: i % 2 == 0 ? "Dish" : nil, kind: .apiCall(name: "call\(i)", arguments: [:]))
            })
            let client = TestHTTPClient(baseURL: fixture.console.baseURL)
            let token = [("Host", "127.0.0.1:8080"), ("Authorization", "Bearer page-token")]
            // The door first: no token, no page (and the answer says why, as JSON).
            let refused = try await client.get("/api/events?limit=5")
            #expect(refused.status == 401 && refused.json["error"] as? String == "token_required")
            for path in ["/api/events?limit=5", "/api/events?q=mvpd:Dish&limit=4&before=20", "/api/events?after=3&limit=3",
                "/api/events?window=600&limit=10", "/api/events?q=status:teapot", "/api/events?limit=0", "/api/events?window=60&after=2"]
            {
                let live = try await client.get(path, headers: ["Authorization": "Bearer page-token"])
                let inProcess = await fixture.get(path, headers: token)
                #expect(live.status == inProcess.status, "\(path)")
                #expect(live.body == inProcess.body, "\(path): \(live.text) vs \(inProcess.text)")
                #expect(live.header("content-type") == "application/json", "\(path)")
                if live.status != 200 { #expect(live.json["error"] is String, "\(path)") }
            }
            let page = try await client.get("/api/events?q=app:com.page.http&limit=5", headers: ["Authorization": "Bearer page-token"]).json
            let summaries = (page["events"] as? [[String: Any]])?.compactMap { $0["summary"] as? String } ?? []
            #expect(summaries.count == 5 && zip(summaries, (25..<30).reversed()).allSatisfy { $0.hasSuffix("call\($1)()") }, "\(summaries)")
            #expect(page["matching"] as? Int == 30)
        }
    }

    @Test("a live event is sent as the same bytes GET /api/events sends for it (one view, written from the stored row)", arguments: HistoryBackend.allCases)
    func liveEventIsThePageEvent(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try fixture.console.start()
            let port = UInt16(URL(string: fixture.console.baseURL)!.port!)
            let app = AppIdentity(bundleID: "com.live.same", teamID: "SAME1")
            let session = UUID()
            let exchange = EntitlementEvent(sequence: 0, timestamp: Date(timeIntervalSince1970: 1_790_000_000.123), sessionID: session,
                deviceID: "d", app: app, requestorID: "REF30", mvpdID: "Dish", kind: .httpExchange(exchange: HTTPExchange(
                    method: "GET", url: "http://127.0.0.1:1/api/v1/config?x=\"y\"", parameters: ["a": "b"], status: 403,
                    responseBody: "{\"status\":403}", failure: nil, durationMs: 12)))
            let call = EntitlementEvent(sequence: 1, timestamp: Date(timeIntervalSince1970: 1_790_000_001), sessionID: session,
                deviceID: "d", app: app, requestorID: "REF30", mvpdID: nil, kind: .apiCall(name: "getAuthorization", arguments: ["r": "news"]))
            // Given a browser watching the app's events
            let connection = try RawConnection(port: port)
            connection.send("GET /api/events/stream?q=app:com.live.same HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
            _ = await connection.read(until: "retry: 2000")
            // When an HTTP exchange and a call are stored
            try await fixture.console.history.append([exchange, call])
            let text = await connection.read(until: "getAuthorization(")
            connection.closeNow()
            let sent = text.components(separatedBy: "\n").filter { $0.hasPrefix("data: {\"event\"") }.map { String($0.dropFirst(6)) }
            #expect(sent.count == 2)
            // Then each live event's JSON is, byte for byte, that event's object in the page
            let page = await fixture.get("/api/events?q=app:com.live.same&limit=10").text
            for json in sent { #expect(page.contains(json), "\(json) not in \(page)") }
            #expect(sent.first?.contains("\"http\":{\"durationMs\":") == true)
            #expect(sent.last?.contains("\"http\":null") == true)
        }
    }

    @Test(arguments: HistoryBackend.allCases) func theLiveFeedPushesNewEventsAndAReconnectResumesWithoutGaps(history: HistoryBackend) async throws {
        try await ConsoleFixture.with(history: history) { fixture in
            try fixture.console.start()
            let port = UInt16(URL(string: fixture.console.baseURL)!.port!)
            let app = AppIdentity(bundleID: "com.live.app", teamID: "LIVE1")
            let session = UUID()
            func event(_ i: Int) -> EntitlementEvent {
                EntitlementEvent(sequence: i, timestamp: Date(), sessionID: session, deviceID: "d", app: app,
                    requestorID: "REF30", mvpdID: nil, kind: .apiCall(name: "live\(i)", arguments: [:]))
            }
            // Given a browser subscribed to callbacks-and-calls of one app
            let connection = try RawConnection(port: port)
            connection.send("GET /api/events/stream?q=app:com.live.app HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
            _ = await connection.read(until: "retry: 2000")
            // When events are stored
            try await fixture.console.history.append([event(0), event(1)])
            // Then they arrive with their history IDs
            let text = await connection.read(until: "live1(")
            #expect(text.contains("event: entitlement"))
            #expect(text.contains("call live0()") && text.contains("call live1()"))
            let firstID = try #require(text.components(separatedBy: "id: ").dropFirst().first.flatMap { Int($0.prefix { $0.isNumber }) })
            connection.closeNow()
            // And a reconnect with Last-Event-ID gets what came while it was away, nothing twice
            try await fixture.console.history.append([event(2), event(3)])
            let resumed = try RawConnection(port: port)
            resumed.send("GET /api/events/stream?q=app:com.live.app HTTP/1.1\r\nHost: 127.0.0.1\r\nLast-Event-ID: \(firstID)\r\n\r\n")
            let again = await resumed.read(until: "live3(")
            #expect(!again.contains("call live0()"))
            #expect(again.contains("call live1()") && again.contains("call live2()") && again.contains("call live3()"))
        }
    }
}
