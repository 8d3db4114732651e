import AccessEnabler
import Foundation
import PassHistory

/// A row of the Sessions list (`GET /api/sessions`): the session as the history holds it, its outcome as of now,
/// the names people know its app and user by, and what the search matched.
struct SessionRow: Encodable, Sendable {
    var session: HistorySession
    /// ``SessionOutcome`` as of the console's clock, and its words.
    var outcome: SessionOutcome
    /// The console's name for the app (`News (iPhone)`), when it runs it.
    var appName: String?
    /// The MVPD username the local backend signed the session's user ID in as, when it knows.
    var username: String?
    var matches: [FieldMatch]

    private enum Keys: String, CodingKey { case outcome, outcomeLabel, appName, username, matches }

    /// The session's own fields, then the list's.
    func encode(to encoder: any Encoder) throws {
        try session.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(outcome, forKey: .outcome)
        try container.encode(outcome.label, forKey: .outcomeLabel)
        try container.encodeIfPresent(appName, forKey: .appName)
        try container.encodeIfPresent(username, forKey: .username)
        try container.encode(matches, forKey: .matches)
    }
}

extension Console {
    /// The sessions a search finds (all, newest first, when `text` is empty), as list rows.
    ///
    /// Besides what the history holds, a word may start an app's name (the console's apps) or a username (the
    /// local backend's sign-ins, each tied to the user ID its token carries).
    func sessionRows(matching text: String, now: Date) async throws -> [SessionRow] {
        let users = await BackendAdmin(baseURL: configuration.backendURL)?.signIns() ?? []
        let names = Dictionary(apps.map { ($0.spec.app.bundleID, $0.spec.name) }) { first, _ in first }
        var aliases = users.map { SessionAlias(shownField: .username, shown: $0.username, field: .userID, value: $0.guid) }
        aliases += names.map { SessionAlias(shownField: .app, shown: $0.value, field: .app, value: $0.key) }
        let usernames = Dictionary(users.map { ($0.guid.lowercased(), $0.username) }) { first, _ in first }
        return try await history.sessions(matching: text, aliases: aliases).map { found in
            SessionRow(session: found.session, outcome: found.session.outcome(at: now), appName: names[found.session.bundleID],
                username: found.session.userID.flatMap { usernames[$0.lowercased()] }, matches: found.matches)
        }
    }
}
