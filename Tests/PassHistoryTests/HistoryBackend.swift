import Foundation
import HistoryTestSupport
import PassHistory
import Testing

extension HistoryBackend: CustomTestStringConvertible {
    public var testDescription: String { rawValue }
}

/// Runs `body` with an empty history of `backend`, removed (or closed) afterwards.
func withHistory<T>(_ backend: HistoryBackend, _ body: (any EventHistory) async throws -> T) async throws -> T {
    switch backend {
    case .sqlite:
        return try await withHistory { history in try await body(history) }
    case .postgres:
        let history = try await openPostgresHistory()
        do {
            let result = try await body(history)
            await history.close()
            return result
        } catch {
            await history.close()
            throw error
        }
    }
}
