import Foundation
import PassHistory
import PostgresNIO

extension HistoryFilter {
    /// The filter as a condition on an `event` row (`TRUE` when it matches everything), its values bound to `query`:
    /// the same rule as the SQLite history's and the live feed's (``HistoryFilter/matches(_:)-(EventFacts)``), written
    /// so PostgreSQL answers it through the schema's indexes (``PostgresSchema``).
    ///
    /// The device and app are the session's, copied onto each event row (schema v4), so they are filtered like the
    /// Programmer and MVPD: no look into `session`.
    ///
    /// IDs match whatever the case of ASCII letters (SQLite's `NOCASE`): the values are folded here, the columns by
    /// `lower()` on `COLLATE "C"` text, which folds ASCII only. The text criterion is `ILIKE` on the summary (also
    /// ASCII-only folding on `COLLATE "C"`), with `%`, `_` and `\` taken literally, served by the trigram index.
    func postgresCondition(_ query: inout PostgresQueryBuilder) -> String {
        var terms: [String] = []
        if let sessionID { terms.append("session_key = (SELECT key FROM session WHERE id = \(query.bind(sessionID)))") }
        if let deviceID {
            terms.append("lower(device_id) = \(query.bind(Self.foldASCII(deviceID)))")
        }
        if let requestorID { terms.append("lower(requestor_id) = \(query.bind(Self.foldASCII(requestorID)))") }
        if let mvpdID { terms.append("lower(mvpd_id) = \(query.bind(Self.foldASCII(mvpdID)))") }
        if !kinds.isEmpty { terms.append("kind = ANY(\(query.bind(kinds.map(\.rawValue).sorted())))") }
        if let text, !text.isEmpty { terms.append("summary ILIKE \(query.bind("%\(Self.escapeLike(text))%"))") }
        if let from { terms.append("timestamp >= \(query.bind(EventRecord.timestampColumn(from)))") }
        if let until { terms.append("timestamp < \(query.bind(EventRecord.timestampColumn(until)))") }
        if let bundleID {
            terms.append("lower(bundle_id) = \(query.bind(Self.foldASCII(bundleID)))")
        }
        if let httpStatus {
            // As the partial indexes are written: the class by `http_status / 100`, errors by the error set.
            switch httpStatus {
            case .failed: terms.append("http_status = 0")
            case .error: terms.append("(http_status < 200 OR http_status >= 400)")
            default:
                if let range = httpStatus.sqlRange { terms.append("http_status IS NOT NULL AND http_status / 100 = \(range.low / 100)") }
            }
        }
        if let codes = httpStatusCodes {
            terms.append(codes.count == 1 ? "http_status = \(query.bind(codes.lowerBound))"
                : "http_status BETWEEN \(query.bind(codes.lowerBound)) AND \(query.bind(codes.upperBound))")
        }
        // `IS NULL OR <> ALL`: an event that names no Programmer (or MVPD) is not one of the excluded ones.
        if !excludedRequestorIDs.isEmpty {
            terms.append("(requestor_id IS NULL OR lower(requestor_id) <> ALL(\(query.bind(Self.foldedList(excludedRequestorIDs)))))")
        }
        if !excludedMvpdIDs.isEmpty {
            terms.append("(mvpd_id IS NULL OR lower(mvpd_id) <> ALL(\(query.bind(Self.foldedList(excludedMvpdIDs)))))")
        }
        if !excludedKinds.isEmpty { terms.append("kind <> ALL(\(query.bind(excludedKinds.map(\.rawValue).sorted())))") }
        if !excludedBundleIDs.isEmpty {
            terms.append("(bundle_id IS NULL OR lower(bundle_id) <> ALL(\(query.bind(Self.foldedList(excludedBundleIDs)))))")
        }
        return terms.isEmpty ? "TRUE" : terms.joined(separator: " AND ")
    }

    /// `text` with ASCII letters lowercased and every other character kept: what `lower()` gives on `COLLATE "C"`.
    static func foldASCII(_ text: String) -> String {
        String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    static func foldedList(_ values: Set<String>) -> [String] {
        Set(values.map(foldASCII)).sorted()
    }
}
