import AccessEnabler
import Foundation

extension HistoryFilter {
    /// Whether `stored` matches, decided in memory: the same answer as the history's query
    /// (``request(after:upTo:)`` through ``BlockScan``), for the live feed, which reads each new event once and
    /// filters it for every client (a property test checks the two agree).
    ///
    /// Device, app and session are the event's own: the history reads them from the event's session row, which
    /// holds what the session's events carry (one app instance's run on one device).
    public func matches(_ stored: StoredEvent) -> Bool {
        let event = stored.event
        if let sessionID, event.sessionID != sessionID { return false }
        if let deviceID, event.deviceID != deviceID { return false }
        if let bundleID, event.app.bundleID != bundleID { return false }
        if let requestorID, event.requestorID != requestorID { return false }
        if let mvpdID, event.mvpdID != mvpdID { return false }
        let kind = EventKind(event.kind)
        if !kinds.isEmpty, !kinds.contains(kind) { return false }
        if excludedKinds.contains(kind) { return false }
        if let text, !text.isEmpty, !Self.likeContains(stored.summary, text) { return false }
        // The column holds seconds since 1970 as a double, compared as such.
        let seconds = event.timestamp.timeIntervalSince1970
        if let from, seconds < from.timeIntervalSince1970 { return false }
        if let until, seconds >= until.timeIntervalSince1970 { return false }
        if let httpStatus {
            // Only HTTP exchanges have a status (0: no answer); SQL's NULL matches no class.
            guard case .httpExchange(let exchange) = event.kind else { return false }
            let status = exchange.status ?? 0
            if let range = httpStatus.sqlRange {
                if status < range.low || status > range.high { return false }
            } else if status >= 200 && status < 400 {
                return false
            }
        }
        if let requestor = event.requestorID, excludedRequestorIDs.contains(requestor) { return false }
        if let mvpd = event.mvpdID, excludedMvpdIDs.contains(mvpd) { return false }
        if excludedBundleIDs.contains(event.app.bundleID) { return false }
        return true
    }

    /// SQLite's `haystack LIKE '%needle%'` with `%` and `_` escaped: a substring test, case-insensitive for ASCII
    /// letters only (as SQLite's LIKE is without ICU).
    static func likeContains(_ haystack: String, _ needle: String) -> Bool {
        let lower = { (byte: UInt8) -> UInt8 in (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
        let text = haystack.utf8.map(lower), pattern = needle.utf8.map(lower)
        guard !pattern.isEmpty else { return true }
        guard text.count >= pattern.count else { return false }
        let first = pattern[0]
        for start in 0...(text.count - pattern.count) where text[start] == first {
            var index = 1
            while index < pattern.count, text[start + index] == pattern[index] { index += 1 }
            if index == pattern.count { return true }
        }
        return false
    }
}
