import AccessEnabler
import Foundation
import PassTestSupport
import Testing

/// A support team's ordinary use of one `passconsole serve` process: several tabs holding live feeds, two apps
/// uploading large batches at once, and pages reading the overview and events meanwhile. On a 2-core machine this
/// used to stop the whole process for good (every Swift concurrency thread blocked in a synchronous history read
/// waiting for a reader that only a concurrency thread could hand back), and SIGTERM then did nothing.
@Suite(.serialized)
struct TeamLoadTests {
    static let liveClients = 12
    static let ingestBatches = 2
    static let eventsPerBatch = 5000
    static let readers = 8
    static let readsPerReader = 6

    @Test func liveFeedsLargeIngestsAndPageReadsTogetherKeepEveryRouteAnsweringAndSIGTERMStopsIt() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("team-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (process, urls) = try await ServeProcess.startWithURLs(folder)
        defer { if process.isRunning { process.terminate(SIGKILL) } }
        let port = try #require(URLComponents(string: urls.console)?.port.flatMap(UInt16.init(exactly:)))

        // Given the tabs of a team, each holding a live feed
        var streams: [RawConnection] = []
        for _ in 0..<Self.liveClients {
            let stream = try RawConnection(port: port)
            stream.send("GET /api/events/stream HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n")
            streams.append(stream)
        }
        for stream in streams { #expect(await stream.read(until: "retry:").contains("retry:")) }
        defer { for stream in streams { stream.closeNow() } }

        // When two apps upload 5,000 events each at once while the pages read the overview and the events
        // A deadlock never answers; a loaded CI machine answers slowly: give each request two minutes.
        let client = TestHTTPClient(baseURL: urls.console, timeout: 120)
        let bodies = try (0..<Self.ingestBatches).map { batch in try EntitlementEvent.Wire.ndjson(Self.events(batch: batch)) }
        async let accepted = withThrowingTaskGroup(of: Int.self) { group in
            for body in bodies {
                group.addTask {
                    let answer = try await client.send("POST", "/api/ingest",
                        headers: ["Content-Type": "application/x-ndjson"], body: body)
                    return answer.json["accepted"] as? Int ?? -answer.status
                }
            }
            return try await group.reduce(0, +)
        }
        async let statuses = withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<Self.readers {
                group.addTask {
                    var statuses: [Int] = []
                    for _ in 0..<Self.readsPerReader {
                        statuses.append(try await client.get("/api/overview").status)
                        statuses.append(try await client.get("/api/events?limit=50").status)
                        statuses.append(try await client.get("/api/sessions").status)
                    }
                    return statuses
                }
            }
            return try await group.reduce([], +)
        }

        // Then every upload is stored and every read answered
        #expect(try await accepted == Self.ingestBatches * Self.eventsPerBatch)
        let answered = try await statuses
        #expect(answered.count == Self.readers * Self.readsPerReader * 3)
        #expect(answered.allSatisfy { $0 == 200 }, "statuses: \(Set(answered))")
        // And the process still answers everything it serves, the backend included
        let overview = try await client.get("/api/overview")
        #expect((overview.json["counts"] as? [String: Any])?["events"] as? Int ?? 0 >= Self.ingestBatches * Self.eventsPerBatch)
        #expect(try await TestHTTPClient(baseURL: urls.backend).get("/adobe-services/1.0/config/REF30").status == 200)

        // And SIGTERM stops it within the stop deadline, live feeds open or not
        let asked = ContinuousClock.now
        process.terminate(SIGTERM)
        while process.isRunning, ContinuousClock.now - asked < .seconds(15) { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!process.isRunning, "still running 15 s after SIGTERM")
    }

    /// One app's upload: `eventsPerBatch` calls over 50 sessions.
    static func events(batch: Int) -> [EntitlementEvent] {
        let sessions = (0..<50).map { _ in UUID() }
        let app = AppIdentity(bundleID: "com.team.load\(batch)", teamID: "TEAM\(batch)")
        return (0..<eventsPerBatch).map { i in
            EntitlementEvent(sequence: i / sessions.count, timestamp: Date(), sessionID: sessions[i % sessions.count],
                deviceID: "device-\(batch)", app: app, requestorID: "REF30", mvpdID: nil,
                kind: .apiCall(name: "call\(i)", arguments: [:]))
        }
    }
}
