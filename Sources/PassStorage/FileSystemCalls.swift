import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few POSIX calls PassStorage makes, each retried on `EINTR` and turned into a ``StorageError``.
///
/// Kept apart from ``StorageFile`` so that its `read()`/`write(_:)` methods don't shadow the C functions.
enum FileSystemCalls {
    /// Permissions for every document and lock file PassStorage creates: owner read/write only.
    static let fileMode: mode_t = 0o600
    /// Permissions for every folder PassStorage creates: owner only.
    static let folderMode: mode_t = 0o700

    /// Opens `path`, retrying on `EINTR`; returns the descriptor or `-1` with `errno` set.
    static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        while true {
            let fd = systemOpen(path, flags | O_CLOEXEC, mode)
            if fd >= 0 || errno != EINTR { return fd }
        }
    }

    /// Reads `fd` to its end. `size` (from `fstat`) sizes the buffer; a file that grew meanwhile is read on in more
    /// chunks. No scratch buffer: the bytes go straight into the result.
    static func readAll(_ fd: Int32, size: Int, path: String) throws(StorageError) -> Data {
        var result = Data(count: max(size, 0) + 1)  // one byte more, to see the end in the first read
        var filled = 0
        while true {
            if filled == result.count { result.count += max(4096, result.count) }
            let count = result.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress! + filled, $0.count - filled) }
            if count > 0 {
                filled += count
            } else if count == 0 {
                result.count = filled
                return result
            } else if errno != EINTR {
                throw .system("read", path: path, errno: errno)
            }
        }
    }

    /// Writes all of `bytes` to `fd`, looping over short writes.
    static func writeAll(_ fd: Int32, _ bytes: Data, path: String) throws(StorageError) {
        var failure: Int32?
        bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let count = systemWrite(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if count >= 0 {
                    offset += count
                } else if errno != EINTR {
                    failure = errno
                    return
                }
            }
        }
        if let failure { throw .system("write", path: path, errno: failure) }
    }

    /// Flushes `fd`'s data and metadata to the device.
    ///
    /// On Darwin `fsync` only reaches the drive's cache; `F_FULLFSYNC` would be needed for power-loss safety there.
    /// The simulated devices run on Linux, where `fsync` is the real thing.
    static func sync(_ fd: Int32, path: String) throws(StorageError) {
        while fsync(fd) != 0 {
            if errno != EINTR { throw .system("sync", path: path, errno: errno) }
        }
    }

    /// Makes a rename or unlink in `folder` durable by syncing the folder itself.
    ///
    /// Without this, a power cut right after `rename` can bring back the old directory entry.
    static func syncFolder(_ folder: String) throws(StorageError) {
        let fd = open(folder, O_RDONLY | O_DIRECTORY)
        guard fd >= 0 else { throw .system("open folder", path: folder, errno: errno) }
        defer { close(fd) }
        while fsync(fd) != 0 {
            // Some file systems can't sync a directory (EINVAL); there is nothing more to do on those.
            if errno == EINVAL || errno == ENOTSUP { return }
            if errno != EINTR { throw .system("sync folder", path: folder, errno: errno) }
        }
    }

    /// Creates `folder` and any missing parents with mode `0700`; existing folders are left as they are.
    static func createFolders(_ folder: URL) throws(StorageError) {
        let path = folder.path(percentEncoded: false)
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw notAFolder(path) }
            return
        }
        // ENOTDIR here means a parent is a document; only a missing folder is ours to create.
        guard errno == ENOENT else { throw .system("create folder", path: path, errno: errno) }
        let parent = folder.deletingLastPathComponent()
        if parent.path(percentEncoded: false) != path { try createFolders(parent) }
        if mkdir(path, folderMode) != 0 {
            guard errno == EEXIST else { throw .system("create folder", path: path, errno: errno) }
            // Another process created it between our stat and mkdir: fine, if it is a folder.
            guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { throw notAFolder(path) }
            return
        }
        // mkdir's mode is filtered through the umask; set it exactly.
        chmod(path, folderMode)
    }

    private static func notAFolder(_ path: String) -> StorageError {
        StorageError(
            code: .wrongFileType,
            message: "Could not create folder '\(path)': something that is not a folder is in the way.",
            path: path,
            errno: ENOTDIR
        )
    }

    /// The names in `folder`, without `.` and `..`, or `nil` when the folder doesn't exist.
    static func listFolder(_ path: String) throws(StorageError) -> [String]? {
        guard let directory = opendir(path) else {
            if errno == ENOENT { return nil }
            throw .system("list folder", path: path, errno: errno)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: $0.pointee)) {
                    String(cString: $0)
                }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// `lstat` of `path`, or `nil` when nothing is there.
    static func status(_ path: String) throws(StorageError) -> stat? {
        var info = stat()
        if lstat(path, &info) == 0 { return info }
        if errno == ENOENT { return nil }
        throw .system("inspect", path: path, errno: errno)
    }
}

// The C functions under names that `FileSystemCalls` and `StorageFile` members can't shadow.
#if canImport(Glibc)
    private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { Glibc.open(path, flags, mode) }
    private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        Glibc.read(fd, buffer, count)
    }
    private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
        Glibc.write(fd, buffer, count)
    }
#elseif canImport(Darwin)
    private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { Darwin.open(path, flags, mode) }
    private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        Darwin.read(fd, buffer, count)
    }
    private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
        Darwin.write(fd, buffer, count)
    }
#endif
