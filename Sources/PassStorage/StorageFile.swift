import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One durable document (bytes) on disk, safe against crashes and against other processes.
///
/// A `StorageFile` is only a location: creating one touches nothing, and any number of values, in any number of
/// threads or processes, may point at the same file. The guarantees come from the disk:
/// - ``write(_:)`` replaces the whole content atomically (a temporary file in the same folder, written, synced,
///   renamed over, then the folder synced), so readers and survivors of a crash see the old bytes or the new, never
///   a mix;
/// - ``update(_:)`` and every other change hold an exclusive `flock` on a sidecar `<name>.lock` file, so two
///   processes updating the same document never lose each other's change.
///
/// ```swift
/// let file = StorageFile(url: device.appendingPathComponent("storage.json"))
/// try file.update { current in
///     var tokens = try current.map { try JSONDecoder().decode(Tokens.self, from: $0) } ?? Tokens()
///     tokens.insert(token)
///     return try JSONEncoder().encode(tokens)
/// }
/// ```
///
/// Documents and lock files are created with mode `0600`, missing folders with `0700`. All methods block the
/// calling thread for their disk I/O and, for changes, while another process holds the lock.
public struct StorageFile: Sendable, Hashable, CustomStringConvertible {
    /// Where the document lives. Its folder is created on the first write.
    public let url: URL
    /// The document's path for system calls (worked out once: an app reads its storage on every call).
    public let path: String

    /// Test-only fault injection; see ``Hooks``.
    var hooks = Hooks()

    /// Creates a value for the document at `url` without touching the disk.
    ///
    /// - Parameter url: A file URL. Its last component names the document; the lock (`<name>.lock`) and temporary
    ///   files (`.<name>.tmp-…`) go next to it.
    public init(url: URL) {
        self.url = url
        path = url.path(percentEncoded: false)
    }

    /// The document's path.
    public var description: String { path }

    /// The last successfully written bytes, or `nil` when the document was never written (or was removed).
    ///
    /// Takes no lock: because writes rename a complete file into place, a read always sees one whole version.
    /// Temporary files left behind by a crashed write are never read.
    ///
    /// - Returns: The document's bytes (possibly empty), or `nil` when there is no document.
    /// - Throws: ``StorageError`` with ``StorageError/Code/wrongFileType`` when the path is a folder,
    ///   ``StorageError/Code/notAccessible`` when it may not be read, ``StorageError/Code/ioFailure`` otherwise.
    public func read() throws(StorageError) -> Data? {
        try readContents()
    }

    /// Replaces the document's content atomically, creating its folder if needed.
    ///
    /// Writes a temporary file in the same folder, `fsync`s it, renames it over the document and `fsync`s the
    /// folder, all while holding the lock. When this returns the new bytes are on the disk; if the process dies
    /// before, ``read()`` still returns the previous bytes. Leftover temporary files from earlier crashes are removed.
    ///
    /// - Parameter data: The complete new content.
    /// - Throws: ``StorageError``: ``StorageError/Code/notAccessible`` when the folder is not writable,
    ///   ``StorageError/Code/wrongFileType`` when the path or a parent is the wrong kind of file,
    ///   ``StorageError/Code/lockFailure`` or ``StorageError/Code/ioFailure`` otherwise. The document is unchanged.
    public func write(_ data: Data) throws(StorageError) {
        let lock = try FileLock(for: self)
        defer { lock.unlock() }
        try replaceContents(with: data)
    }

    /// Deletes the document, under the lock. Does nothing when it doesn't exist.
    ///
    /// The lock file stays: deleting it could let two processes lock two different lock files at once.
    ///
    /// - Throws: ``StorageError`` when the document exists but can't be deleted, or the lock can't be taken.
    public func remove() throws(StorageError) {
        guard let lock = try FileLock(for: self, creatingFolder: false) else { return }
        defer { lock.unlock() }
        try removeContents()
    }

    /// Two values are equal when they point at the same URL.
    public static func == (lhs: StorageFile, rhs: StorageFile) -> Bool {
        lhs.url == rhs.url
    }

    /// Hashes the URL.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(url)
    }
}

extension StorageFile {
    /// The folder holding the document, its lock and its temporary files.
    var folder: URL { url.deletingLastPathComponent() }

    /// The document's file name.
    var name: String { url.lastPathComponent }

    /// Reads the document without locking; `nil` when absent.
    func readContents() throws(StorageError) -> Data? {
        guard let (fd, data, _) = try openAndRead() else { return nil }
        close(fd)
        return data
    }

    /// Opens the document and reads it whole; `nil` when absent. The caller closes the descriptor.
    func openAndRead() throws(StorageError) -> (fd: Int32, data: Data, info: stat)? {
        let fd = FileSystemCalls.open(path, O_RDONLY)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw .system("open", path: path, errno: errno)
        }
        do throws(StorageError) {
            var info = stat()
            if fstat(fd, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
                let kind = info.st_mode & S_IFMT == S_IFDIR ? "a folder" : "not a regular file"
                throw StorageError(
                    code: .wrongFileType,
                    message: "Could not read '\(path)': it is \(kind), not a document.",
                    path: path,
                    errno: info.st_mode & S_IFMT == S_IFDIR ? EISDIR : nil
                )
            }
            return (fd, try FileSystemCalls.readAll(fd, size: Int(info.st_size), path: path), info)
        } catch {
            close(fd)
            throw error
        }
    }

    /// Deletes the document without locking; the caller holds the lock.
    func removeContents() throws(StorageError) {
        removeLeftoverTemporaryFiles()
        if unlink(path) != 0 {
            if errno == ENOENT { return }
            throw .system("delete", path: path, errno: errno)
        }
        try FileSystemCalls.syncFolder(folder.path(percentEncoded: false))
    }
}
