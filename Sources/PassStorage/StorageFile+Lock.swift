import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: - Read-modify-write

extension StorageFile {
    /// The sidecar file whose `flock` guards every change to the document: `<name>.lock` in the same folder.
    ///
    /// Any process that locks this file with `flock(2)` (or `flock(1)`) takes part in the same protocol.
    public var lockURL: URL { folder.appendingPathComponent(name + ".lock") }

    /// Reads, transforms and writes the document under an exclusive inter-process lock.
    ///
    /// Holds a `flock` on ``lockURL`` from before the read until after the write, so two processes (or threads, or
    /// `StorageFile` values) updating the same document never lose each other's change. Waits, blocking the calling
    /// thread, while anyone else holds the lock. The write is atomic as in ``write(_:)``.
    ///
    /// ```swift
    /// try file.update { current in
    ///     let count = current.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
    ///     return Data(String(count + 1).utf8)
    /// }
    /// ```
    ///
    /// - Parameter transform: Gets the current bytes (`nil` when there is no document) and returns the new bytes, or
    ///   `nil` to delete the document. Runs once, on the calling thread, while the lock is held.
    /// - Returns: What was written, or `nil` when the document was deleted.
    /// - Throws: ``StorageError`` when reading, writing or locking fails, or whatever `transform` throws; either way
    ///   the document is unchanged.
    /// - Warning: Don't touch the same document from inside `transform`: `flock` locks are per open file, so a nested
    ///   ``write(_:)``, ``update(_:)`` or ``remove()`` waits for this one forever.
    @discardableResult
    public func update(_ transform: (Data?) throws -> Data?) throws -> Data? {
        let lock = try FileLock(for: self)
        defer { lock.unlock() }
        let current = try readContents()
        guard let new = try transform(current) else {
            try removeContents()
            return nil
        }
        try replaceContents(with: new)
        return new
    }
}

// MARK: - The lock

/// An exclusive `flock` on a document's sidecar lock file, held until ``unlock()``.
///
/// `flock` locks belong to an open file description, so each `FileLock` opens its own descriptor: threads of one
/// process exclude each other exactly as processes do. The kernel drops the lock when the descriptor is closed,
/// including when the process dies, so a crash never leaves the document locked.
struct FileLock {
    private let fd: Int32

    /// Opens (creating with mode `0600` if needed) the document's lock file and waits for an exclusive lock.
    ///
    /// - Parameter creatingFolder: Whether to create the document's missing folders. When `false` and the folder
    ///   doesn't exist, there is nothing to guard and the initializer returns `nil`.
    init?(for file: StorageFile, creatingFolder: Bool) throws(StorageError) {
        if creatingFolder { try FileSystemCalls.createFolders(file.folder) }
        let path = file.lockURL.path(percentEncoded: false)
        let fd = FileSystemCalls.open(path, O_RDWR | O_CREAT, FileSystemCalls.fileMode)
        guard fd >= 0 else {
            if errno == ENOENT && !creatingFolder { return nil }
            throw .system("open the lock file", path: path, errno: errno)
        }
        // open's mode is filtered through the umask; set it exactly. Fails harmlessly on another user's lock file.
        fchmod(fd, FileSystemCalls.fileMode)
        while flock(fd, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            let failure = errno
            close(fd)
            throw .system("lock", path: path, errno: failure, code: .lockFailure)
        }
        self.fd = fd
    }

    /// Opens and locks the document's lock file, creating its folders if needed.
    init(for file: StorageFile) throws(StorageError) {
        // `creatingFolder: true` never returns nil.
        self = try FileLock(for: file, creatingFolder: true)!
    }

    /// Releases the lock by closing the descriptor.
    func unlock() {
        close(fd)
    }
}
