import AccessEnabler
import Foundation
import Testing
@testable import PassHistory

@Suite("History statistics")
struct HistoryStatisticsTests {
    @Test("statistics taken when the history was small are taken again once it has grown, and not on every run")
    func statisticsFollowGrowth() async throws {
        try await withHistory { history in
            var factory = EventFactory()
            try await history.append(factory.flow())
            try await history.optimize()
            let small = try #require(try await history.analyzedEventCount())
            #expect(small < 100)
            // Grown well past twice the analyzed size: analyzed again.
            for _ in 0..<20 { try await history.append((0..<250).map { _ in factory.make(.apiCall(name: "x", arguments: [:])) }) }
            try await history.optimize()
            let grown = try #require(try await history.analyzedEventCount())
            #expect(grown > 2500)
            // A little more: the statistics stand (PRAGMA optimize only).
            try await history.append((0..<100).map { _ in factory.make(.apiCall(name: "y", arguments: [:])) })
            try await history.optimize()
            #expect(try await history.analyzedEventCount() == grown)
        }
    }
}
