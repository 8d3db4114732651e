import PassEvents
import Foundation

/// A history export: the events matching a filter and the sessions they belong to, as one JSON document
/// (`{"version": 1, "exportedAt": …, "sessions": […], "events": […]}`), written and read with the history's one
/// encoder and decoder.
public struct HistoryExport: Codable, Sendable, Equatable {
    /// The format version this build writes and reads.
    public static let currentVersion = 1

    /// The document's format version.
    public var version: Int
    /// When the export was made.
    public var exportedAt: Date
    /// The sessions of the exported events, the most recently active first.
    public var sessions: [HistorySession]
    /// The exported events, in the order they were stored.
    public var events: [EntitlementEvent]

    /// Creates an export document.
    public init(version: Int = currentVersion, exportedAt: Date, sessions: [HistorySession], events: [EntitlementEvent]) {
        self.version = version
        self.exportedAt = exportedAt
        self.sessions = sessions
        self.events = events
    }

    /// The events of `database` matching `filter`, with their sessions.
    public init(from database: HistoryDatabase, matching filter: HistoryFilter = .all, exportedAt: Date = Date()) async throws {
        var events: [EntitlementEvent] = []
        var cursor: Int64?
        repeat {
            let page = try await database.page(matching: filter, after: cursor, limit: 5000)
            events += page.events.map(\.event)
            cursor = page.nextCursor
        } while cursor != nil
        let sessionIDs = Set(events.map(\.sessionID))
        let sessions = try await database.sessions().filter { sessionIDs.contains($0.id) }
        self.init(exportedAt: exportedAt, sessions: sessions, events: events)
    }

    /// The document as JSON.
    public func encoded() throws -> Data {
        try EventCoding.encoder.encode(self)
    }

    /// Reads a document written by ``encoded()``.
    /// - Throws: ``HistoryExportError/unsupportedVersion(_:)`` for a version this build does not know, or the
    ///   decoding error for anything that is not an export.
    public static func decode(_ data: Data) throws -> HistoryExport {
        struct Header: Decodable { var version: Int }
        let version = try EventCoding.decoder.decode(Header.self, from: data).version
        guard version == currentVersion else { throw HistoryExportError.unsupportedVersion(version) }
        return try EventCoding.decoder.decode(HistoryExport.self, from: data)
    }
}

/// Why an export could not be read.
public enum HistoryExportError: Error, Equatable, Sendable {
    /// The document's format version is not one this build reads.
    case unsupportedVersion(Int)
}
