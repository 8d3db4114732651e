import AccessEnabler
import Foundation
import Testing
@testable import PassHistory

@Suite("HistoryExport")
struct HistoryExportTests {
    @Test("an export of a filter round-trips through JSON")
    func roundTrip() async throws {
        try await withHistory { history in
            var a = EventFactory()
            var b = EventFactory(deviceID: "device-B")
            let eventsA = a.flow()
            try await history.append(eventsA + b.flow())
            let export = try await HistoryExport(
                from: history, matching: HistoryFilter(deviceID: "device-A"), exportedAt: Date(timeIntervalSince1970: 1_700_000_000))
            #expect(export.events == eventsA)
            #expect(export.sessions.map(\.id) == [a.sessionID])

            let data = try export.encoded()
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(Set(object.keys) == ["version", "exportedAt", "sessions", "events"])
            #expect(object["version"] as? Int == 1)
            #expect(try HistoryExport.decode(data) == export)

            // What was exported appends into another history unchanged.
            let copy = try HistoryDatabase.inMemory()
            try await copy.append(try HistoryExport.decode(data).events)
            #expect(try await copy.page().events.map(\.event) == eventsA)
        }
    }

    @Test("an unknown version or a non-export is refused")
    func refusesOtherDocuments() throws {
        #expect(throws: HistoryExportError.unsupportedVersion(2)) {
            try HistoryExport.decode(Data(#"{"version": 2, "events": []}"#.utf8))
        }
        #expect(throws: DecodingError.self) { try HistoryExport.decode(Data("[]".utf8)) }
    }
}
