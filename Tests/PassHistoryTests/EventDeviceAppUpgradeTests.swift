import AccessEnabler
import Foundation
import GRDB
import HistoryTestSupport
import PassHistoryPostgres
import PassTestSupport
import Testing
@testable import PassHistory

/// Each event carries its session's device and app (SQLite schema v9, PostgreSQL v4), so `device:` and `app:` pages
/// read one index. A history written before keeps answering them after the upgrade.
@Suite("Events' device and app columns")
struct EventDeviceAppUpgradeTests {
    /// A history at the schema before the columns, written through `append` as that build did, and a way to open it
    /// again at the current schema.
    static func olderHistory(_ backend: HistoryBackend) async throws -> (old: any EventHistory, reopen: () async throws -> any EventHistory,
        done: () async -> Void)
    {
        switch backend {
        case .sqlite:
            let directory = try TemporaryDirectory()
            let path = directory.historyPath
            let old = try HistoryDatabase(writer: DatabasePool(path: path), upTo: "v8-operators")
            // `done` holds the folder until the test ends.
            return (old, { try HistoryDatabase(path: path) }, { _ = directory })
        case .postgres:
            let cluster = try await PostgresCluster.shared()
            let database = try await cluster.createDatabase()
            let old = try await PostgresHistory(host: cluster.host, port: cluster.port, username: cluster.user, password: cluster.password,
                database: database, migratingUpTo: 3)
            return (old, { try await cluster.openHistory(database: database) }, {})
        }
    }

    @Test("events stored before the columns are found by device and app after the upgrade, as new ones are; a session's later device stays its first",
        arguments: HistoryBackend.allCases)
    func upgradeKeepsDeviceAndAppPages(backend: HistoryBackend) async throws {
        let (old, reopen, done) = try await Self.olderHistory(backend)
        var phone = EventFactory()
        var tv = EventFactory(deviceID: "Device-TV", app: AppIdentity(bundleID: "com.other.TV", teamID: "TEAM9", platform: .tvOS))
        let before = phone.flow() + tv.flow()
        try await old.append(before)
        if let old = old as? PostgresHistory { await old.close() }
        let history = try await reopen()
        var applied = try await (history as? HistoryDatabase)?.appliedMigrations()
        if let postgres = history as? PostgresHistory { applied = try await postgres.appliedMigrations() }
        #expect(applied?.last?.contains("event-device-app") == true)
        // The same session reporting another device ID later (a reinstall mid-flow): still the session's device's event.
        tv.deviceID = "device-other"
        let after = [phone.make(.apiCall(name: "logout", arguments: [:])), tv.make(.apiCall(name: "logout", arguments: [:]))]
        try await history.append(after)
        func matching(_ filter: HistoryFilter) async throws -> [EntitlementEvent] {
            try await history.page(matching: filter, limit: 100).events.map(\.event)
        }
        let phoneEvents = before.filter { $0.sessionID == phone.sessionID } + [after[0]]
        let tvEvents = before.filter { $0.sessionID == tv.sessionID } + [after[1]]
        #expect(try await matching(HistoryFilter(deviceID: "device-tv")) == tvEvents)
        #expect(try await matching(HistoryFilter(deviceID: "device-other")) == [])
        var tvApp = HistoryFilter(), phoneApp = HistoryFilter(deviceID: "DEVICE-a"), notTV = HistoryFilter()
        tvApp.bundleID = "COM.OTHER.tv"
        phoneApp.bundleID = "com.example.news.ios"
        notTV.excludedBundleIDs = ["com.other.tv"]
        #expect(try await matching(tvApp) == tvEvents)
        #expect(try await matching(phoneApp) == phoneEvents)
        #expect(try await matching(notTV) == phoneEvents)
        if let history = history as? PostgresHistory { await history.close() }
        await done()
    }
}
