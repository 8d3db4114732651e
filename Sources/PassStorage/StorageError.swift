#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a storage operation failed.
///
/// Shaped like NIO's `FileSystemError`: an opaque ``Code`` to branch on (new codes never break a `switch`), a
/// ``message`` for people that names the path, the ``path`` itself, and the `errno` of the system call that failed,
/// when one did.
///
/// ```swift
/// do {
///     try file.write(bytes)
/// } catch {
///     if error.code == .notAccessible { … }   // error is a StorageError: write(_:) uses typed throws
/// }
/// ```
public struct StorageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, broadly.
    ///
    /// Compare against the static constants (`error.code == .ioFailure`); the set of codes may grow.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: String, Sendable {
            case ioFailure, lockFailure, notAccessible, wrongFileType, invalidName
        }

        private let wrapped: Wrapped

        private init(_ wrapped: Wrapped) {
            self.wrapped = wrapped
        }

        /// Reading, writing, syncing or renaming failed for a reason other than the ones below (disk full, I/O error).
        public static let ioFailure = Code(.ioFailure)
        /// `flock` on the document's lock file failed. (A lock file that can't be opened for lack of permission is
        /// ``notAccessible``.)
        public static let lockFailure = Code(.lockFailure)
        /// The process may not read or write there (`EACCES`, `EPERM`, `EROFS`): check the folder's owner and mode.
        public static let notAccessible = Code(.notAccessible)
        /// Something on the path is the wrong kind of file: a folder where a document was expected (`EISDIR`), or a
        /// document where a folder was expected (`ENOTDIR`).
        public static let wrongFileType = Code(.wrongFileType)
        /// A team ID, bundle ID or file name was rejected before touching the disk (empty, `.`, `..`, a `/`, a NUL…).
        public static let invalidName = Code(.invalidName)

        /// The code's name, such as `notAccessible`.
        public var description: String { wrapped.rawValue }
    }

    /// What went wrong, broadly.
    public var code: Code
    /// What happened, in words a person can act on; always names the path.
    public var message: String
    /// The file or folder the operation was about.
    public var path: String
    /// The `errno` of the failed system call, or `nil` when the error was not raised by one (an invalid name).
    public var errno: Int32?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What went wrong, broadly.
    ///   - message: What happened; should name `path`.
    ///   - path: The file or folder the operation was about.
    ///   - errno: The `errno` of the failed system call, if any.
    public init(code: Code, message: String, path: String, errno: Int32? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.errno = errno
    }

    /// The code, the message and, when there is one, the `errno`: `notAccessible: Could not … (errno 13)`.
    public var description: String {
        guard let errno else { return "\(code): \(message)" }
        return "\(code): \(message) (errno \(errno))"
    }
}

extension StorageError {
    /// An error for a failed system call, with a code chosen from `errno` unless `code` is given.
    ///
    /// The message reads "Could not `<action>` '`<path>`': `<strerror>`.".
    static func system(_ action: String, path: String, errno: Int32, code: Code? = nil) -> StorageError {
        StorageError(
            code: code ?? Code(errno: errno),
            message: "Could not \(action) '\(path)': \(String(cString: strerror(errno))).",
            path: path,
            errno: errno
        )
    }
}

extension StorageError.Code {
    /// The code for a failed system call's `errno`.
    init(errno: Int32) {
        switch errno {
        case EACCES, EPERM, EROFS: self = .notAccessible
        case EISDIR, ENOTDIR: self = .wrongFileType
        default: self = .ioFailure
        }
    }
}
