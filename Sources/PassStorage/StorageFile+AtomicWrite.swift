import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: - Atomic replace

extension StorageFile {
    /// The prefix of every temporary file a write of this document creates: `.<name>.tmp-`.
    ///
    /// The leading dot keeps them out of listings, and ``read()`` never opens them, so a leftover from a crash is
    /// invisible until the next write removes it.
    var temporaryPrefix: String { ".\(name).tmp-" }

    /// Replaces the document with `data`: temp file, write, `fsync`, rename over, `fsync` folder.
    ///
    /// The caller holds the lock. On an ordinary failure the temporary file is deleted; when a test hook throws, it
    /// is left behind on purpose, as a crash at that point would leave it.
    func replaceContents(with data: Data) throws(StorageError) {
        removeLeftoverTemporaryFiles()
        let folderPath = folder.path(percentEncoded: false)
        let temporaryURL = folder.appendingPathComponent(
            temporaryPrefix + "\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
        )
        let temporaryPath = temporaryURL.path(percentEncoded: false)

        // O_EXCL: never reuse a file some other writer might still hold open.
        let fd = FileSystemCalls.open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL, FileSystemCalls.fileMode)
        guard fd >= 0 else {
            throw .system("create a temporary file in", path: folderPath, errno: errno)
        }
        let half = data.count / 2
        var isOpen = true
        func discard() {
            if isOpen { close(fd) }
            unlink(temporaryPath)
        }

        do throws(StorageError) {
            // open's mode is filtered through the umask; set it exactly.
            fchmod(fd, FileSystemCalls.fileMode)
            try FileSystemCalls.writeAll(fd, data.prefix(half), path: temporaryPath)
        } catch {
            discard()
            throw error
        }
        try simulateCrash(at: .halfWritten, temporaryURL: temporaryURL, fd: fd)
        do throws(StorageError) {
            try FileSystemCalls.writeAll(fd, data.dropFirst(half), path: temporaryPath)
            try FileSystemCalls.sync(fd, path: temporaryPath)
            isOpen = false
            if close(fd) != 0 { throw StorageError.system("close", path: temporaryPath, errno: errno) }
        } catch {
            discard()
            throw error
        }
        try simulateCrash(at: .beforeRename, temporaryURL: temporaryURL, fd: nil)
        if rename(temporaryPath, path) != 0 {
            let failure = errno
            discard()
            throw .system("replace", path: path, errno: failure)
        }
        try FileSystemCalls.syncFolder(folderPath)
    }

    /// Runs the test hook for `point`; if it throws, closes `fd` and rethrows, leaving the temporary file behind.
    private func simulateCrash(at point: Hooks.Point, temporaryURL: URL, fd: Int32?) throws(StorageError) {
        guard let interrupt = hooks.interrupt else { return }
        do throws(StorageError) {
            try interrupt(point, temporaryURL)
        } catch {
            // A crashed process's descriptors are closed by the kernel, and so is its lock; mimic that.
            if let fd { close(fd) }
            throw error
        }
    }

    /// Deletes temporary files left by crashed writes of this document. The caller holds the lock.
    ///
    /// Safe because every writer holds the lock while its temporary file exists, so any temporary file seen here
    /// belongs to a writer that died. Best effort: a leftover that can't be deleted is harmless, as reads skip it.
    func removeLeftoverTemporaryFiles() {
        let folderPath = folder.path(percentEncoded: false)
        guard let names = try? FileSystemCalls.listFolder(folderPath) else { return }
        for name in names where name.hasPrefix(temporaryPrefix) {
            unlink(folder.appendingPathComponent(name).path(percentEncoded: false))
        }
    }
}
