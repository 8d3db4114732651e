import Crypto
import Foundation
import MicroHTTP
import PassHistory

/// What a request asks to do, judged from its head alone (method, normalised path, query): the unit the roles'
/// rules are written in.
public enum ConsoleAction: String, Sendable, CaseIterable {
    /// Read a page, a list, an export with personal data redacted.
    case read
    /// `POST /api/storage/clear`.
    case clear
    /// `POST /api/storage/import`.
    case importStorage = "import"
    /// `POST /api/storage/undo`.
    case undo
    /// `POST /api/sessions/{id}/replay`.
    case replay
    /// Any `reveal=` other than `false` on an export: personal data or live tokens leave the console.
    case reveal
    /// `POST /api/ingest`: events from a reporting app.
    case ingest
    /// Any other change: app calls and sign-ins, starting and stopping apps, the TV provider, what-ifs.
    case change

    /// `clear storage`, as the refusal says it.
    var words: String {
        switch self {
        case .read: "read"
        case .clear: "clear storage"
        case .importStorage: "import storage"
        case .undo: "undo storage changes"
        case .replay: "replay sessions"
        case .reveal: "reveal personal data or live tokens"
        case .ingest: "ingest events"
        case .change: "change anything"
        }
    }

    /// The action `request` asks for; `path` is its normalised path.
    static func of(_ request: Request, path: String) -> ConsoleAction {
        guard AccessGuard.changes(request) else {
            // A `reveal` value that does not parse is counted as a reveal: a viewer's typo never gets further.
            let reveal = (try? RevealChoice.parse(request)) ?? .everything
            return reveal == .nothing ? .read : .reveal
        }
        let segments = path.split(separator: "/").map(String.init)
        switch path {
        case "/api/storage/clear": return .clear
        case "/api/storage/import": return .importStorage
        case "/api/storage/undo": return .undo
        case "/api/ingest": return .ingest
        default:
            return segments.count == 4 && segments[0] == "api" && segments[1] == "sessions" && segments[3] == "replay" ? .replay : .change
        }
    }
}

extension OperatorRole {
    /// The one rule every route goes through (``AccessGuard``): viewers read, redacted; operators do everything.
    public func may(_ action: ConsoleAction) -> Bool {
        switch self {
        case .viewer: action == .read
        case .operator: true
        }
    }

    /// `read, export redacted` / everything, for the page and the CLI.
    public var summary: String {
        switch self {
        case .viewer: "reads everything with personal data redacted; changes nothing"
        case .operator: "reads, and may clear, import, undo, replay, reveal and drive the apps"
        }
    }
}

/// Personal tokens of named operators: 32 random bytes, shown once; only their SHA-256 is stored.
public enum OperatorToken {
    /// Marks a personal token, so one pasted in the wrong place is recognisable.
    static let prefix = "pco_"

    /// A new personal token (`pco_` and 64 hex digits).
    public static func generate() -> String { prefix + AccessGuard.randomToken() }

    /// Lower-case hex SHA-256 of `token`: what the history keeps and looks tokens up by. The token has 256 bits of
    /// entropy, so a plain hash is enough (no slow hash needed against guessing).
    public static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

/// Who is asking, once the door let them through.
public struct ConsoleIdentity: Sendable, Equatable {
    /// The named operator; `nil` on a console without operators, or for the console's access token at `/api/ingest`.
    public var operatorName: String?
    /// Their role; `nil` when there is no named operator (full rights, as before operators existed).
    public var role: OperatorRole?
    /// Whether this console has named operators (so a person must sign in).
    public var signInRequired: Bool

    /// No operators: the console's one user.
    static let singleUser = ConsoleIdentity(operatorName: nil, role: nil, signInRequired: false)
}

/// What goes into an audit line: the operator's name (when named) and the client's address.
struct AuditActor: Sendable {
    var remote: String
    var operatorName: String?
}

extension EventHistory {
    /// Records a console action, naming who did it.
    @discardableResult
    func audit(_ action: String, detail: String, by actor: AuditActor) async throws -> AuditEntry {
        try await audit(action, detail: detail, remote: actor.remote, operator: actor.operatorName)
    }
}
