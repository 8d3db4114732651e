import AccessEnabler
import Foundation
import PassHistory

/// The events on screen as CSV (RFC 4180): one row per event, the columns a spreadsheet user filters on.
enum EventCSV {
    static let header = ["id", "time", "session", "app", "platform", "device", "programmer", "mvpd", "kind", "summary"]

    /// The CSV; with a `report`, a first `#` line says what was done to personal data (spreadsheets show it as the
    /// top row; `pandas.read_csv(comment="#")` and the like skip it).
    static func make(_ events: [StoredEvent], report: PersonalDataRedaction.Report? = nil) -> String {
        var lines = [header.joined(separator: ",")]
        // Commas would split the note into cells; it is one line a person reads.
        if let report { lines.insert(EventExportHeader.sentence(report).replacingOccurrences(of: ",", with: ";"), at: 0) }
        for stored in events {
            let event = stored.event
            let fields = [
                String(stored.id), EntitlementEvent.Wire.format(event.timestamp), event.sessionID.uuidString,
                event.app.bundleID, event.app.platform.rawValue, event.deviceID, event.requestorID ?? "", event.mvpdID ?? "",
                EventKind(event.kind).rawValue, stored.summary,
            ]
            lines.append(fields.map(escape).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// Quotes a field when it holds a comma, quote or line break; doubles quotes inside. A leading `=`, `+`, `-`, `@`
    /// gets a `'` so a spreadsheet never runs it as a formula.
    static func escape(_ field: String) -> String {
        var value = field
        if let first = value.first, "=+-@".contains(first) { value = "'" + value }
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// The first line of an NDJSON events export: what the file is and what was done to personal data. ``NDJSONEvents``
/// skips it, so the file can be ingested again as it is.
struct EventExportHeader: Codable, Sendable {
    struct Body: Codable, Sendable {
        var format = "passconsole-events"
        var exportedAt: Date
        var count: Int
        var personalData: PersonalDataRedaction.Report
        var note: String
    }

    var passconsoleExport: Body

    init(exportedAt: Date, count: Int, personalData: PersonalDataRedaction.Report) {
        passconsoleExport = Body(exportedAt: exportedAt, count: count, personalData: personalData, note: Self.sentence(personalData))
    }

    /// `# PassConsole events export. Redacted: user IDs, ZIP codes. Personal data is replaced …`
    static func sentence(_ report: PersonalDataRedaction.Report) -> String {
        report.revealed
            ? "# PassConsole events export WITH personal data, kept on purpose (the console's audit log records it)."
            : "# PassConsole events export. Redacted: \(report.removedText). \(report.rule)"
    }

    /// Whether an NDJSON line is this header.
    static func isHeader(_ line: some Collection<UInt8>) -> Bool {
        line.starts(with: #"{"passconsoleExport":"#.utf8)
    }
}
