import Foundation
import GRDB

/// Why the history cannot be read or written, in words a person can act on, for the API, the log and the page's banner:
/// a read-only file, a full disk, a damaged file, a failing disk, a lock held elsewhere, a database server that cannot
/// be reached. Each history maps its own errors into it (``EventHistory/problem(_:)``: SQLite's result codes here,
/// PostgreSQL's SQLSTATEs and connection errors in `PassHistoryPostgres`); an error it maps is one worth waiting out
/// (the batcher retries it), any other is a bug or a bad value.
public struct HistoryProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of trouble.
    public enum Kind: String, Sendable, Codable {
        /// The file (or its folder, or the disk) cannot be written: `SQLITE_READONLY`, `SQLITE_PERM`.
        case readOnly = "read_only"
        /// No room left: `SQLITE_FULL`.
        case diskFull = "disk_full"
        /// The file is damaged: `SQLITE_CORRUPT`, `SQLITE_NOTADB`, or `quick_check` found faults.
        case damaged
        /// The disk failed a read or write: `SQLITE_IOERR`, `SQLITE_CANTOPEN`.
        case ioError = "io_error"
        /// Another process holds the file: `SQLITE_BUSY`, `SQLITE_LOCKED`; on PostgreSQL a serialization failure, a
        /// deadlock, a lock not available, too many connections.
        case busy
        /// The database server cannot be reached (PostgreSQL): connection refused or closed, the server shutting
        /// down or starting, no connection within the lease timeout.
        case unreachable
    }

    /// What went wrong, as a kind the console words for people.
    public var kind: Kind
    /// The history file (on PostgreSQL the database's URL without its password), when known.
    public var file: String?
    /// SQLite's own words (`attempt to write a readonly database`) or the check's findings.
    public var detail: String

    /// A problem of `kind` with the history `file`, in SQLite's own words (`detail`).
    public init(kind: Kind, file: String?, detail: String) {
        self.kind = kind
        self.file = file
        self.detail = detail
    }

    /// The problem a SQLite `error` reports (or `error` itself when it is one), or `nil` when it is not one of the
    /// history's storage failures (a bug, a bad value): those are not worth a banner and are not retried. A history
    /// answers through ``EventHistory/problem(_:)``, which for ``HistoryDatabase`` is this.
    public init?(_ error: any Error, file: String?) {
        if let problem = error as? HistoryProblem {
            self = problem
            return
        }
        guard let error = error as? DatabaseError else { return nil }
        let kind: Kind
        let name: String
        switch error.resultCode {
        case .SQLITE_READONLY: (kind, name) = (.readOnly, "SQLITE_READONLY")
        case .SQLITE_PERM: (kind, name) = (.readOnly, "SQLITE_PERM")
        case .SQLITE_FULL: (kind, name) = (.diskFull, "SQLITE_FULL")
        case .SQLITE_CORRUPT: (kind, name) = (.damaged, "SQLITE_CORRUPT")
        case .SQLITE_NOTADB: (kind, name) = (.damaged, "SQLITE_NOTADB")
        case .SQLITE_IOERR: (kind, name) = (.ioError, "SQLITE_IOERR")
        case .SQLITE_CANTOPEN: (kind, name) = (.ioError, "SQLITE_CANTOPEN")
        case .SQLITE_BUSY: (kind, name) = (.busy, "SQLITE_BUSY")
        case .SQLITE_LOCKED: (kind, name) = (.busy, "SQLITE_LOCKED")
        default: return nil
        }
        // The extended code tells which I/O failed (SQLITE_IOERR_WRITE is 778, _FSYNC 1034, …).
        let code = error.extendedResultCode.rawValue
        self.init(kind: kind, file: file, detail: "\(name) (\(code)): \(error.message ?? "no message")")
    }

    /// What is wrong and what to do, in one sentence or two.
    public var message: String {
        let name = file ?? "the history"
        switch kind {
        case .readOnly:
            return "The history \(name) is read-only: events cannot be saved. Check that this process may write the file and "
                + "its folder (and that the disk is not mounted read-only)."
        case .diskFull:
            return "The disk holding the history \(name) is full: events cannot be saved. Free some space (or lower the "
                + "history's retention); waiting events are saved once there is room."
        case .damaged:
            return "The history \(name) is damaged. Stop the console and restart it with --history-recover: the damaged "
                + "file is kept aside under a timestamped name and a fresh history is started."
        case .ioError:
            return "The disk failed to read or write the history \(name) (I/O error). Check the disk; waiting events are "
                + "saved once it answers again."
        case .busy:
            return "Another process holds the history \(name) locked: events wait until it lets go."
        case .unreachable:
            return "The history database \(name) is unreachable: pages that read the history answer 503 and new events "
                + "wait (kept in memory) until it answers again. Check that the PostgreSQL server runs and that this machine "
                + "can reach it."
        }
    }

    public var description: String { "\(message) (\(detail))" }
}
