import AccessEnabler
import Foundation
import MicroHTTP
import PassHistory

/// A support bundle opened again, for an offline console (`passconsole serve --bundle FILE`): its events go into an
/// in-memory history, and its health card, contract and storage are shown as they were when it was made. Nothing in
/// an offline console can be changed.
public struct OpenedBundle: Sendable {
    /// Why a file cannot be opened as a bundle, in words.
    public struct Unreadable: Error, CustomStringConvertible, Sendable {
        /// What is wrong with the file and, where it helps, what to do.
        public var description: String
    }

    /// Where it was read from.
    public var file: String
    /// When the bundle was made.
    public var createdAt: Date
    /// The session the bundle is about.
    public var sessionID: UUID
    /// The bundle ID of the session's app.
    public var bundleID: String
    /// The session's events, as exported (personal data replaced unless it was revealed).
    public var events: [EntitlementEvent]
    /// The file as read (downloading the bundle again gives exactly it).
    var raw: Data
    /// Passed through as written: the card, the contract and the storage report at the time of export.
    var health: Data
    var contract: Data
    var storage: Data

    /// Reads and checks a bundle written by ``SupportBundle``.
    public static func read(path: String) throws(Unreadable) -> OpenedBundle {
        guard let data = FileManager.default.contents(atPath: path) else { throw Unreadable(description: "Cannot read \(path).") }
        return try read(data, file: path)
    }

    static func read(_ data: Data, file: String) throws(Unreadable) -> OpenedBundle {
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw Unreadable(description: "\(file) is not JSON.")
        }
        guard let manifest = root["manifest"] as? [String: Any], manifest["format"] as? String == SupportBundle.formatName else {
            throw Unreadable(description: "\(file) is not a PassConsole support bundle (no manifest with format \"\(SupportBundle.formatName)\").")
        }
        guard let version = manifest["version"] as? Int, version <= SupportBundle.formatVersion else {
            throw Unreadable(description: "\(file) is a support bundle of version \(manifest["version"] ?? "?"); "
                + "this console reads version \(SupportBundle.formatVersion) and older.")
        }
        let session = manifest["session"] as? [String: Any] ?? [:]
        guard let id = (session["id"] as? String).flatMap(UUID.init(uuidString:)),
            let created = (manifest["createdAt"] as? String).flatMap(EntitlementEvent.Wire.parse)
        else { throw Unreadable(description: "\(file): the manifest names no session or no creation time.") }
        func part(_ key: String) throws(Unreadable) -> Data {
            guard let value = root[key], let encoded = try? JSONSerialization.data(withJSONObject: value) else {
                throw Unreadable(description: "\(file) has no \"\(key)\" part: the bundle is incomplete.")
            }
            return encoded
        }
        let events: [EntitlementEvent]
        do {
            events = try EntitlementEvent.Wire.decoder().decode([EntitlementEvent].self, from: try part("events"))
        } catch let error as Unreadable {
            throw error
        } catch {
            throw Unreadable(description: "\(file): its events cannot be read (\(error)).")
        }
        return OpenedBundle(
            file: file, createdAt: created, sessionID: id, bundleID: session["bundleID"] as? String ?? "?", events: events, raw: data,
            health: try part("health"), contract: try part("contract"), storage: try part("storage"))
    }

    /// `GET /api/storage` of the offline console: the bundle's storage report.
    var storageAnswer: Data {
        Data(#"{"deviceFolder":"(support bundle)","now":"\#(EntitlementEvent.Wire.format(createdAt))","domains":"#.utf8) + storage
            + Data("}".utf8)
    }

    /// `GET /api/sessions/{id}` of the bundle's session: its card and contract as they were at export.
    func sessionAnswer(session: HistorySession, flow: FlowProgress) throws -> Response {
        func object(_ data: Data) throws -> Any { try JSONSerialization.jsonObject(with: data) }
        let answer: [String: Any] = [
            "session": try object(APICoding.encode(session)), "flow": try object(APICoding.encode(flow)),
            "health": try object(health), "contract": try object(contract),
        ]
        return .json(data: try JSONSerialization.data(withJSONObject: answer, options: [.sortedKeys]))
    }
}
