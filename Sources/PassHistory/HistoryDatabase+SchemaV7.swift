import PassEvents
import Foundation
import GRDB

extension HistoryDatabase {
    /// v7: an event is stored as the API and the live feed send it (``EventView``), so answering is passing the
    /// stored bytes on, and `timestamp` holds seconds since 2001 (`Date`'s own value) instead of since 1970, so the
    /// exact time of an event reads back (the view's dates have milliseconds).
    ///
    /// Each stored event's JSON (dates as numbers) is turned into its view by rewriting its dates
    /// (``StoredEventForm/fromStored(_:)``, no decoding) with the HTTP fields SQLite reads from it and the row's
    /// ID, kind and summary around it; its exact time is the number the stored JSON ends with. A row that does not
    /// read that way is decoded and encoded again.
    static func migrateToStoredViews(_ db: Database) throws {
        let exchange = "$.kind.httpExchange.exchange"
        let update = try db.makeStatement(sql: "UPDATE event SET payload = ?, timestamp = ? WHERE id = ?")
        let decoder = EventCoding.decoder
        var last: Int64 = 0
        while true {
            let rows = try Row.fetchAll(db, sql: """
                SELECT id, kind, summary, httpStatus, payload, timestamp,
                    CASE WHEN kind = 'httpExchange' THEN json_extract(payload, '\(exchange).method') END,
                    CASE WHEN kind = 'httpExchange' THEN json_extract(payload, '\(exchange).url') END,
                    CASE WHEN kind = 'httpExchange' THEN json_extract(payload, '\(exchange).durationMs') END,
                    CASE WHEN kind = 'httpExchange' THEN json_extract(payload, '\(exchange).failure') END
                FROM event WHERE id > ? ORDER BY id LIMIT 2000
                """, arguments: [last])
            guard let final = rows.last else { break }
            last = final[0]
            for row in rows {
                let id: Int64 = row[0], kind: String = row[1], summary: String = row[2], payload: String = row[4]
                var view: String, seconds: Double
                if let wire = StoredEventForm.fromStored(payload), let time = storedTimestamp(payload) {
                    var http = "null"
                    if let method: String = row[6] {
                        let status: Int? = row[3]
                        http = EventView.http(HTTPExchange.Summary(method: method, url: row[7] ?? "", status: status == 0 ? nil : status,
                            durationMs: row[8] ?? 0, failure: row[9]))
                    }
                    view = "{\"event\":" + wire + ",\"http\":" + http + ",\"id\":" + String(id) + EventView.tail(kind: kind, summary: summary)
                    seconds = time
                } else if let event = try? EventCoding.event(fromPayload: payload, decoder: decoder) {
                    view = EventView.parts(of: event, summary: summary).json(id: id)
                    seconds = EventRecord.timestampColumn(event.timestamp)
                } else {
                    // Unreadable before and after: kept as it was, inside a view.
                    view = "{\"event\":" + payload + ",\"http\":null,\"id\":" + String(id) + EventView.tail(kind: kind, summary: summary)
                    seconds = (row[5] as Double) - Date.timeIntervalBetween1970AndReferenceDate
                }
                try update.execute(arguments: [view, seconds, id])
            }
        }
    }

    /// The time a v1–v6 stored event's JSON ends with (`,"timestamp":<seconds since 2001>}`, the last key of the
    /// sorted object): exact, as it was written.
    static func storedTimestamp(_ payload: String) -> Double? {
        guard payload.hasSuffix("}"), let colon = payload.lastIndex(of: ":") else { return nil }
        let number = payload[payload.index(after: colon)..<payload.index(before: payload.endIndex)]
        return Double(number)
    }
}
