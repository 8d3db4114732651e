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
    /// The visitor IDs the app set (`setOptions`), as its requests carried them; empty when it set none.
    var visitorIDs: [String] = []

    private enum Keys: String, CodingKey {
        case outcome, outcomeLabel, appName, userID, username, matches, visitorIDs, client, clientLabel
    }

    /// The session's own fields, then the list's.
    func encode(to encoder: any Encoder) throws {
        try session.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(outcome, forKey: .outcome)
        try container.encode(outcome.label, forKey: .outcomeLabel)
        try container.encodeIfPresent(appName, forKey: .appName)
        // Which protocol the client speaks (an SDK app's platform, or what the backend or a proxy saw).
        try container.encode(session.client, forKey: .client)
        try container.encode(session.client.label, forKey: .clientLabel)
        // The user ID is personal data ``HistorySession`` does not encode: the list shows it to find the customer.
        try container.encodeIfPresent(session.userID, forKey: .userID)
        try container.encodeIfPresent(username, forKey: .username)
        try container.encode(matches, forKey: .matches)
        if !visitorIDs.isEmpty { try container.encode(visitorIDs, forKey: .visitorIDs) }
    }
}

/// A page of the Sessions list: its rows in the asked order, where the next page starts, and how many match.
struct SessionListPage: Encodable, Sendable {
    var sessions: [SessionRow]
    /// The sort applied (the asked one, or the default).
    var sort: SessionSortKey
    var order: SessionSortOrder
    /// How many sessions match the search, over all pages.
    var total: Int
    /// Pass as `cursor=` for the next page; absent on the last.
    var nextCursor: String?
}

extension Console {
    /// One page of the sessions a search finds (all when `text` is empty), as list rows, sorted by `sort` over every
    /// matching session, starting after `cursor`.
    ///
    /// Besides what the history holds, a word may start a user ID the console knows (the Tokens page's, and the
    /// local backend's sign-ins), found through the user ID the SDK sent or the hash its tracking data reported
    /// (``TrackingEvent/userHash(of:)``); a username the local backend signed one of those user IDs in as; or the
    /// name of one of the console's apps. The app and user columns sort by those names too (``SessionLabels``).
    func sessionPage(matching text: String, sort: SessionSort = .default, after cursor: SessionCursor? = nil, limit: Int = 200,
        now: Date) async throws -> SessionListPage
    {
        let users = await knownUsers(now: now)
        let names = Dictionary(apps.map { ($0.spec.app.bundleID, $0.spec.name) }) { first, _ in first }
        var aliases = names.map { SessionAlias(shownField: .app, shown: $0.value, field: .app, value: $0.key) }
        var byHash: [String: String] = [:]
        var labels = SessionLabels(apps: names)
        for (guid, username) in users {
            let hash = TrackingEvent.userHash(of: guid)
            byHash[hash] = guid
            // The list shows the username when known, else the user ID (also for a session that only reported the hash).
            labels.users[hash] = username ?? guid
            aliases.append(SessionAlias(shownField: .userID, shown: guid, field: .trackingHash, value: hash))
            guard let username else { continue }
            labels.users[guid] = username
            aliases.append(SessionAlias(shownField: .username, shown: username, field: .userID, value: guid))
            aliases.append(SessionAlias(shownField: .username, shown: username, field: .trackingHash, value: hash))
        }
        // A whole user ID from elsewhere (another console, a ticket) finds the sessions that reported its hash too.
        for word in text.split(whereSeparator: \.isWhitespace) where UUID(uuidString: String(word)) != nil {
            for spelling in Set([String(word), word.uppercased()]) {
                let hash = TrackingEvent.userHash(of: spelling)
                aliases.append(SessionAlias(shownField: .userID, shown: spelling, field: .trackingHash, value: hash))
            }
        }
        let page = try await history.sessionPage(matching: text, aliases: aliases, sort: sort, labels: labels, now: now,
            after: cursor, limit: limit)
        let visitors = try await history.values(of: .visitorID, sessions: page.sessions.map(\.session.id))
        let rows = page.sessions.map { found in
            var session = found.session
            if session.userID == nil, let hash = session.trackingHash { session.userID = byHash[hash.lowercased()] }
            return SessionRow(session: session, outcome: session.outcome(at: now), appName: names[session.bundleID],
                username: session.userID.flatMap { users[$0] ?? nil }, matches: found.matches, visitorIDs: visitors[session.id] ?? [])
        }
        return SessionListPage(sessions: rows, sort: sort.key, order: sort.order, total: page.total, nextCursor: page.nextCursor?.token)
    }

    /// The user IDs the console knows, each with the MVPD username the local backend signed it in as (when it did):
    /// the authentication tokens in the devices' storage (as the Tokens page shows them) and the backend's sign-ins.
    func knownUsers(now: Date) async -> [String: String?] {
        var users: [String: String?] = [:]
        if let storage = try? await storageReport(now: now) {
            for domain in storage.domains {
                for programmer in domain.programmers {
                    for cell in programmer.mvpds { if let guid = cell.authn?.userID { users[guid] = .some(nil) } }
                }
            }
        }
        for signIn in await BackendAdmin(baseURL: configuration.backendURL)?.signIns() ?? [] {
            users[signIn.guid] = signIn.username
        }
        return users
    }
}
