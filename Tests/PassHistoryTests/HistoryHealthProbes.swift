import HistoryTestSupport
import AccessEnabler
import Foundation
import Testing
@testable import PassHistory

/// The probes behind Benchmarks/reliability.md ("History health and secrets at rest"): each fault made many times on
/// real files, counting the tries the history did not handle as promised. Each prints `PROBE name: tries N,
/// failures F` and fails on any failure.
@Suite("History health probes", .serialized)
struct HistoryHealthProbes {
    func report(_ name: String, tries: Int, failures: Int) {
        print("PROBE \(name): tries \(tries), failures \(failures)")
        #expect(failures == 0, "\(name)")
    }

    /// A closed history of 1500 events to copy per try.
    func cleanFile(_ directory: TemporaryDirectory) async throws -> String {
        let path = directory.url.appendingPathComponent("clean.sqlite").path
        try await HistoryHealthTests.filledHistory(at: path, events: 1500)
        return path
    }

    @Test("damage in the middle of a closed file: refused at open, then recovered")
    func damageAtOpen() async throws {
        let directory = try TemporaryDirectory()
        let clean = try await cleanFile(directory)
        let tries = 40
        var missed = 0
        var unrecovered = 0
        for attempt in 0..<tries {
            let path = directory.url.appendingPathComponent("try\(attempt).sqlite").path
            try FileManager.default.copyItem(atPath: clean, toPath: path)
            try HistoryFaults.overwriteMiddlePages(of: path, count: 1 + attempt % 8, seed: attempt)
            do {
                _ = try await HistoryDatabase.openChecked(path: path, recover: false)
                missed += 1
            } catch let problem as HistoryProblem where problem.kind == .damaged {
                let (history, aside) = try await HistoryDatabase.openChecked(path: path, recover: true)
                var factory = EventFactory()
                let empty = try await history.eventCount == 0
                let appended = try await history.append(factory.flow())
                if aside == nil || !empty || appended != 8 { unrecovered += 1 }
            }
        }
        report("damaged file refused at open (1–8 middle pages overwritten)", tries: tries, failures: missed)
        report("--history-recover moves it aside and a fresh history takes writes", tries: tries - missed, failures: unrecovered)
    }

    @Test("damage made while the history is open and was read: found by the periodic check")
    func damageWhileOpen() async throws {
        let directory = try TemporaryDirectory()
        let clean = try await cleanFile(directory)
        let tries = 20
        var missed = 0
        for attempt in 0..<tries {
            let path = directory.url.appendingPathComponent("open\(attempt).sqlite").path
            try FileManager.default.copyItem(atPath: clean, toPath: path)
            let history = try HistoryDatabase(path: path)
            _ = try await history.page(limit: 2000)
            guard await history.quickCheck() == nil else { missed += 1; continue }
            try HistoryFaults.overwriteMiddlePages(of: path, count: 1 + attempt % 8, seed: attempt)
            if await history.quickCheck()?.kind != .damaged { missed += 1 }
            try history.close()
        }
        report("damage while open found by quick_check", tries: tries, failures: missed)
    }

    @Test("file modes under umasks 022, 000 and 077")
    func modes() async throws {
        let directory = try TemporaryDirectory()
        let masks: [mode_t] = [0o022, 0o000, 0o077]
        let tries = 21
        var wrong = 0
        for attempt in 0..<tries {
            let path = directory.url.appendingPathComponent("mode\(attempt).sqlite").path
            try await withUmask(masks[attempt % 3]) {
                let history = try HistoryDatabase(path: path)
                var factory = EventFactory()
                try await history.append(factory.flow())
                try await history.saveBackup(StorageBackup(reason: "probe", documents: [.init(domain: "d", path: "p", contents: Data("t".utf8))]))
                if ["", "-wal", "-shm"].contains(where: { HistoryFaults.mode(path + $0) != 0o600 }) { wrong += 1 }
                try history.close()
            }
        }
        report("history, -wal, -shm created 0600", tries: tries, failures: wrong)
    }

    @Test("read-only and full: named, and the batcher's events land afterwards")
    func unwritable() async throws {
        try await withHistory { history in
            var factory = EventFactory()
            let tries = 20
            var misnamed = 0
            for attempt in 0..<tries {
                let full = attempt % 2 == 1
                if full { try await HistoryFaults.diskFull(history, true) } else { try await HistoryFaults.readOnly(history, true) }
                let events = (0..<300).map { factory.make(.error(code: "E\($0)", message: String(repeating: "w", count: 500))) }
                do {
                    _ = try await history.append(events)
                    misnamed += 1
                } catch {
                    if HistoryProblem(error, file: history.path)?.kind != (full ? .diskFull : .readOnly) { misnamed += 1 }
                }
                if full { try await HistoryFaults.diskFull(history, false) } else { try await HistoryFaults.readOnly(history, false) }
            }
            report("SQLITE_READONLY / SQLITE_FULL named read-only / disk full", tries: tries, failures: misnamed)

            let rounds = 10
            var lost = 0
            for round in 0..<rounds {
                let batcher = EventBatcher(database: history, maxCount: 50, maxDelay: .milliseconds(5), retryDelay: .milliseconds(10),
                    maxRetryDelay: .milliseconds(80))
                let before = try await history.eventCount
                try await HistoryFaults.readOnly(history, true)
                for i in 0..<200 { await batcher.add(factory.make(.apiCall(name: "r\(round)-\(i)", arguments: [:]))) }
                try await Task.sleep(for: .milliseconds(50 + 25 * round))
                try await HistoryFaults.readOnly(history, false)
                let landed = try await eventually(within: 10) { try await history.eventCount == before + 200 }
                let dropped = await batcher.droppedCount
                if !landed || dropped != 0 { lost += 1 }
            }
            report("batcher keeps 200 events through a read-only spell and lands them all", tries: rounds, failures: lost)
        }
    }

    @Test("secrets redacted before storing never reach the file's bytes")
    func secretsAtRest() async throws {
        try await withHistory { history in
            var factory = EventFactory()
            let tries = 50
            var leaked = 0
            for _ in 0..<tries {
                let password = "pw-" + UUID().uuidString
                let token = "<signatureInfo>" + UUID().uuidString + UUID().uuidString + "<signatureInfo><simpleAuthenticationToken/>"
                let event = factory.make(.httpExchange(exchange: HTTPExchange(method: "POST", url: "http://x/login",
                    parameters: ["password": password, "authentication_token": token], headers: ["Authorization": token], status: 200,
                    responseBody: token, failure: nil, durationMs: 1)))
                try await history.append([event.redacted()])
                try await HistoryFaults.checkpoint(history)
                let path = try #require(history.path)
                let bytes = String(decoding: (try? Data(contentsOf: URL(filePath: path))) ?? Data(), as: UTF8.self)
                    + String(decoding: (try? Data(contentsOf: URL(filePath: path + "-wal"))) ?? Data(), as: UTF8.self)
                if bytes.contains(password) || bytes.contains(String(token.dropFirst(15).prefix(36))) { leaked += 1 }
            }
            report("password and full token absent from history.sqlite and -wal bytes", tries: tries, failures: leaked)
        }
    }
}
