import PassEvents
import Foundation
import GRDB

extension HistoryDatabase {
    /// A session's state while a batch is written: which sequences are new, and what the new events change about the
    /// session (its outcome, latest MVPD and user ID, search entries). The same rule for every history backend.
    package struct SessionWrite: Sendable {
        package var key: Int64
        /// The device and app the session was first seen with (its row's, never changed): every event of the session
        /// carries them (SQLite schema v9, PostgreSQL v4).
        package var deviceID: String
        package var bundleID: String
        /// The highest sequence stored (or written by this batch).
        package var lastSequence: Int
        package var added = 0
        /// The sequences this batch wrote, for the slow path.
        var written: [Int] = []
        /// The stored sequences, read on the first event at or below `lastSequence` (a batch sent again).
        var stored: Set<Int>?
        /// MVPDs named by the batch's new events.
        var mvpds: Set<String> = []
        /// The session's outcome, moved on by the batch's new events (``SessionOutcome/Tracker``).
        package var outcome: SessionOutcome.Tracker
        /// What the session can be found by, as named by the batch (the session's own ID, device and app included;
        /// Programmers and MVPDs apart, see ``requestors`` and ``mvpds``).
        package var terms: Set<SessionTerm> = []
        /// Programmers named by the batch's new events.
        var requestors: Set<String> = []
        /// The latest MVPD, user ID and tracking hash the batch named.
        package var latestMvpd: String?
        package var latestUserID: String?
        package var latestTrackingHash: String?
        /// Whether the batch's last word on the user was a tracking hash (a sign-in the SDK reported by tracking, before
        /// it sent that user's ID).
        package var lastNamedHash = false

        /// A session's state before the batch: its key, device and app, highest stored sequence (-1: none) and outcome.
        package init(key: Int64, deviceID: String, bundleID: String, lastSequence: Int, outcome: SessionOutcome.Tracker) {
            self.key = key
            self.deviceID = deviceID
            self.bundleID = bundleID
            self.lastSequence = lastSequence
            self.outcome = outcome
        }

        /// Counts `event` (new to the history) towards the session's outcome, columns and search entries.
        mutating func record(_ event: EntitlementEvent, terms eventTerms: [SessionTerm]) {
            outcome.apply(event)
            if let mvpd = event.mvpdID {
                latestMvpd = mvpd
                mvpds.insert(mvpd)
            }
            if let requestor = event.requestorID { requestors.insert(requestor) }
            for term in eventTerms {
                terms.insert(term)
                if term.field == .userID { (latestUserID, lastNamedHash) = (term.value, false) }
                if term.field == .trackingHash { (latestTrackingHash, lastNamedHash) = (term.value, true) }
            }
        }

        /// Every search entry the batch adds: the terms and the Programmers and MVPDs named.
        package var searchTerms: Set<SessionTerm> {
            let named = requestors.filter { !$0.isEmpty }.map { SessionTerm(field: .programmer, value: $0) }
                + mvpds.filter { !$0.isEmpty }.map { SessionTerm(field: .mvpd, value: $0) }
            return terms.union(named)
        }

        /// Whether the session's user ID is no longer its current user's: the batch's last word on the user is the
        /// tracking hash of someone else (another user signed in; the SDK sends that user's ID only with their first
        /// authorization). `stored` is the user ID the session holds, read only when ``needsStoredUserID``.
        package func clearsUserID(stored: String?) -> Bool {
            guard lastNamedHash, let hash = latestTrackingHash, let current = latestUserID ?? stored else { return false }
            return TrackingEvent.userHash(of: current) != hash.lowercased()
        }

        /// Whether ``clearsUserID(stored:)`` needs the stored user ID (the batch named a hash but no user ID).
        package var needsStoredUserID: Bool { lastNamedHash && latestUserID == nil }

        /// Writes the outcome, the latest MVPD and user ID (none when the user changed since: the Sessions page then
        /// shows the user of the latest tracking hash), and the new search entries.
        func store(_ db: Database) throws {
            let stored = needsStoredUserID
                ? try String.fetchOne(db.cachedStatement(sql: "SELECT userID FROM session WHERE key = ?"), arguments: [key]) : nil
            try db.cachedStatement(sql: """
                UPDATE session SET outcome = ?, waitingSince = ?, mvpdID = COALESCE(?, mvpdID),
                    userID = CASE WHEN ? THEN NULL ELSE COALESCE(?, userID) END, trackingHash = COALESCE(?, trackingHash)
                WHERE key = ?
                """).execute(arguments: [outcome.settled.rawValue, outcome.waitingSince?.timeIntervalSince1970, latestMvpd,
                    clearsUserID(stored: stored), latestUserID, latestTrackingHash, key])
            try HistoryDatabase.insertTerms(db, searchTerms, sessionKey: key)
        }

        /// Whether `row` is new; if so it counts as written.
        mutating func admit(_ row: EncodedEvent, _ db: Database) throws -> Bool {
            let key = key
            return try admit(row) { try HistoryDatabase.storedSequences(db, sessionKey: key) }
        }

        /// Whether `row` is new; if so it counts as written. `storedSequences` reads the session's stored sequences,
        /// called at most once, on the first event at or below ``lastSequence``.
        package mutating func admit(_ row: EncodedEvent, storedSequences: () throws -> Set<Int>) rethrows -> Bool {
            let sequence = row.event.sequence
            if sequence > lastSequence {
                lastSequence = sequence
            } else {
                if stored == nil { stored = try storedSequences().union(written) }
                guard stored?.insert(sequence).inserted == true else { return false }
            }
            written.append(sequence)
            stored?.insert(sequence)
            added += 1
            record(row.event, terms: row.terms)
            return true
        }
    }
}
