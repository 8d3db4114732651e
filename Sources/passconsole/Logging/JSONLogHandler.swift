import ArgumentParser
import Foundation
import Locking
import Logging

/// `--log-format json`: one JSON object per line on standard error, for a log shipper (Loki, Elasticsearch, a cloud
/// logging agent) — `{"time":"2026-11-26T14:02:03.123Z","level":"info","label":"passconsole.serve","message":"…",
/// "metadata":{…}}`. `time` is ISO 8601 in UTC with milliseconds; `metadata` is left out when empty; nested metadata
/// keeps its shape (dictionaries as objects, arrays as arrays). A line is written with one `write` so lines from
/// several threads never interleave.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.metadataProvider = metadataProvider
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// swift-log's current entry point: the same line as the older one.
    func log(event: LogEvent) {
        log(level: event.level, message: event.message, metadata: event.metadata, source: event.source, file: event.file,
            function: event.function, line: event.line)
    }

    func log(
        level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?, source: String,
        file: String, function: String, line: UInt
    ) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let explicit { merged.merge(explicit) { _, new in new } }
        FileHandle.standardError.write(Self.line(time: Date(), level: level, label: label, message: "\(message)", metadata: merged))
    }

    /// One log line: the JSON object and a newline.
    static func line(time: Date, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) -> Data {
        var object: [String: Any] = [
            "time": formatter.withLock { $0.string(from: time) }, "level": level.rawValue, "label": label, "message": message,
        ]
        if !metadata.isEmpty { object["metadata"] = metadata.mapValues(json) }
        // Every value is a string, array or dictionary of them: serialisation cannot fail; a line is never lost.
        var data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data(#"{"level":"error","message":"unencodable log line"}"#.utf8)
        data.append(0x0A)
        return data
    }

    private static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): values.map(json)
        case .dictionary(let values): values.mapValues(json)
        }
    }

    private static let formatter = Mutex<ISO8601DateFormatter>({
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter
    }())
}

/// How `passconsole serve` writes its log: `text` (swift-log's stream handler, the default) or `json`.
enum LogFormat: String, CaseIterable, ExpressibleByArgument {
    case text, json

    /// Sets the process's log handler (once, at start; swift-log allows one bootstrap per process).
    func bootstrap() {
        switch self {
        case .text: break
        case .json: LoggingSystem.bootstrap({ label, provider in JSONLogHandler(label: label, metadataProvider: provider) }, metadataProvider: nil)
        }
    }
}
