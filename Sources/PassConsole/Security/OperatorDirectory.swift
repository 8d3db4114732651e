import Foundation
import Locking
import PassHistory

/// The named operators as the door reads them: straight from the history on every guarded request, so a token
/// revoked by `passconsole operator revoke` (another process, or another console on the same history) is refused
/// from the next request on.
final class OperatorDirectory: Sendable {
    private let history: HistoryDatabase
    /// Whether the last successful read found operators: when the history cannot be read, a console known to have
    /// none keeps today's single-user behaviour (its history errors are answered by the routes), one with operators
    /// lets no one in.
    private let lastKnownHasOperators = Mutex(false)

    init(history: HistoryDatabase) { self.history = history }

    /// What the history says about `token`; `nil` when it cannot be read and the console had operators.
    func lookUp(_ token: String?) -> OperatorLookup? {
        do {
            let lookup = try history.lookUpOperator(tokenHash: token.map(OperatorToken.hash))
            lastKnownHasOperators.withLock { $0 = lookup.hasOperators }
            return lookup
        } catch {
            return lastKnownHasOperators.withLock { $0 } ? nil : OperatorLookup(hasOperators: false, match: nil)
        }
    }
}
