import PassEvents
import Foundation

extension HistoryFilter {
    /// Whether `stored` matches, decided in memory: the same answer as the history's query
    /// (``request(after:upTo:)``). See ``matches(_:)-(EventFacts)``.
    public func matches(_ stored: StoredEvent) -> Bool {
        matches(EventFacts(stored))
    }

    /// Whether the event with these row facts matches, decided in memory: the same answer as the history's query,
    /// for the live feed, which reads each new row once and filters it for every client without decoding the event
    /// (a property test checks this agrees with the query, for decoded events and for rows).
    ///
    /// Device, app and session are the session row's, which holds what the session's events carry (one app
    /// instance's run on one device).
    public func matches(_ event: EventFacts) -> Bool {
        if let sessionID, event.sessionID != sessionID { return false }
        if let deviceID, !Self.sameIgnoringASCIICase(event.deviceID, deviceID) { return false }
        if let bundleID, !Self.sameIgnoringASCIICase(event.bundleID, bundleID) { return false }
        if let requestorID, !Self.sameIgnoringASCIICase(event.requestorID, requestorID) { return false }
        if let mvpdID, !Self.sameIgnoringASCIICase(event.mvpdID, mvpdID) { return false }
        if !kinds.isEmpty, !kinds.contains(event.kind) { return false }
        if excludedKinds.contains(event.kind) { return false }
        if let text, !text.isEmpty, !Self.likeContains(event.summary, text) { return false }
        // The column's value, compared as the query compares it.
        if let from, event.timestamp < EventRecord.timestampColumn(from) { return false }
        if let until, event.timestamp >= EventRecord.timestampColumn(until) { return false }
        if httpStatus != nil || httpStatusCodes != nil {
            // Only HTTP exchanges have a status (0: no answer); SQL's NULL matches no class and no range.
            guard let status = event.httpStatus else { return false }
            if let range = httpStatus?.sqlRange {
                if status < range.low || status > range.high { return false }
            } else if httpStatus == .error, status >= 200 && status < 400 {
                return false
            }
            if let codes = httpStatusCodes, !codes.contains(status) { return false }
        }
        if let requestor = event.requestorID, excludedRequestorIDs.contains(where: { Self.sameIgnoringASCIICase(requestor, $0) }) { return false }
        if let mvpd = event.mvpdID, excludedMvpdIDs.contains(where: { Self.sameIgnoringASCIICase(mvpd, $0) }) { return false }
        if excludedBundleIDs.contains(where: { Self.sameIgnoringASCIICase(event.bundleID, $0) }) { return false }
        return true
    }

    /// SQLite's `a = b COLLATE NOCASE`: equal once ASCII letters are folded; other characters must be the same bytes.
    /// A missing value equals nothing (SQL's NULL).
    static func sameIgnoringASCIICase(_ value: String?, _ wanted: String) -> Bool {
        guard let value else { return false }
        let lower = { (byte: UInt8) -> UInt8 in (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
        return value.utf8.count == wanted.utf8.count && zip(value.utf8, wanted.utf8).allSatisfy { lower($0) == lower($1) }
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
