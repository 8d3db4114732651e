import PassEvents
import Foundation
import GRDB

extension HistoryDatabase {
    /// v5: the session search and the session list's columns.
    ///
    /// - `session_term` holds, per session, every value it can be found by (``SessionField``: user ID, tracking
    ///   hash, visitor ID, device, app, Programmer, MVPD, session ID), lowercased in `term` for a case-insensitive
    ///   prefix search through the primary key: a search reads the matching entries only, never the events.
    /// - `session` gains the latest MVPD, user ID and tracking hash and the outcome (``SessionOutcome/Tracker``), kept current by
    ///   ``append(_:)``.
    ///
    /// Existing sessions are filled in from their stored events: the identities from the events that can carry one,
    /// the outcome from the events the rule reads, each decoded once.
    static func migrateToSessionSearch(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE session ADD COLUMN mvpdID TEXT;
            ALTER TABLE session ADD COLUMN userID TEXT;
            ALTER TABLE session ADD COLUMN trackingHash TEXT;
            ALTER TABLE session ADD COLUMN outcome TEXT NOT NULL DEFAULT 'started';
            ALTER TABLE session ADD COLUMN waitingSince REAL;
            CREATE TABLE session_term (
                term TEXT NOT NULL,
                field TEXT NOT NULL,
                sessionKey INTEGER NOT NULL REFERENCES session(key) ON DELETE CASCADE,
                value TEXT NOT NULL,
                offset INTEGER NOT NULL,
                PRIMARY KEY (term, field, sessionKey)
            ) WITHOUT ROWID;
            CREATE INDEX session_term_on_sessionKey ON session_term(sessionKey);
            """)
        let sessions = try Row.fetchAll(db, sql: "SELECT key, id, deviceID, bundleID FROM session")
        for session in sessions {
            guard let id = UUID(uuidString: session[1]) else { continue }
            try insertTerms(db, SessionTerm.ofSession(id: id, deviceID: session[2], bundleID: session[3]), sessionKey: session[0])
        }
        var writes: [Int64: SessionWrite] = [:]
        let kinds = [EventKind.httpExchange, .apiCall, .tracking, .callback, .stateChanged, .error].map { "'\($0.rawValue)'" }
        let rows = try Row.fetchCursor(db, sql: """
            SELECT sessionKey, payload FROM event WHERE kind IN (\(kinds.joined(separator: ","))) OR requestorID IS NOT NULL
                OR mvpdID IS NOT NULL ORDER BY id
            """)
        let decoder = EventCoding.decoder
        while let row = try rows.next() {
            let key: Int64 = row[0]
            guard let event = try? EventCoding.event(fromPayload: row[1], decoder: decoder) else { continue }
            writes[key, default: SessionWrite(key: key, deviceID: "", bundleID: "", lastSequence: 0, outcome: SessionOutcome.Tracker())]
                .record(event, terms: event.identityTerms)
        }
        for write in writes.values { try write.store(db) }
    }

    /// Adds `terms` to a session's search entries (each searchable form once).
    static func insertTerms(_ db: Database, _ terms: some Collection<SessionTerm>, sessionKey: Int64) throws {
        guard !terms.isEmpty else { return }
        // Bound through the C API: this runs in the ingest transaction (see DirectStatement).
        let insert = try DirectStatement.termInsert(db)
        for term in terms {
            for (text, offset) in term.searchable {
                try insert.execute(.text(text), .text(term.field.rawValue), .integer(sessionKey), .text(term.value), .integer(Int64(offset)))
            }
        }
    }
}
