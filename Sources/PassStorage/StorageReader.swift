import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a document and keeps what it decoded, reading again only when the document may have changed: an app reads
/// its storage on every call, and another process may change it at any time.
///
/// The reader keeps the document it last read open. Every write of a ``StorageFile`` renames a new file over the
/// document and ``StorageFile/remove()`` deletes it, so a changed document leaves the open one without a name
/// (`st_nlink` 0), whoever changed it; an open file's inode cannot be reused, so a new document is never mistaken for
/// the old one. A document rewritten in place by some other tool is caught by its size and change time (as fine as the
/// file system keeps them). One `fstat` per read while nothing changed, instead of open, read and close.
public final class StorageReader<Value: Sendable>: Sendable {
    /// The document read.
    public let file: StorageFile
    private let decode: @Sendable (Data?) throws -> Value

    private struct Kept {
        var fd: Int32
        var size: Int
        var changed: timespec
        var value: Value
    }
    private let kept = Mutex<Kept?>(nil)

    /// A reader of `file`; `decode` turns its bytes (`nil`: no document) into the value.
    public init(file: StorageFile, decode: @escaping @Sendable (Data?) throws -> Value) {
        self.file = file
        self.decode = decode
    }

    deinit {
        if let fd = kept.withLock({ $0?.fd }) { close(fd) }
    }

    /// The decoded document: the value kept when the document is still the one read last, else read and decoded anew.
    /// - Throws: ``StorageError`` when the document cannot be read; what `decode` throws.
    public func load() throws -> Value {
        try kept.withLock { kept in
            if let current = kept {
                var info = stat()
                if fstat(current.fd, &info) == 0, info.st_nlink > 0, Int(info.st_size) == current.size,
                    Self.changeTime(info).tv_sec == current.changed.tv_sec, Self.changeTime(info).tv_nsec == current.changed.tv_nsec
                {
                    return current.value
                }
                close(current.fd)
                kept = nil
            }
            guard let (fd, data, info) = try file.openAndRead() else { return try decode(nil) }
            do {
                let value = try decode(data)
                kept = Kept(fd: fd, size: Int(info.st_size), changed: Self.changeTime(info), value: value)
                return value
            } catch {
                close(fd)
                throw error
            }
        }
    }

    private static func changeTime(_ info: stat) -> timespec {
        #if canImport(Darwin)
            info.st_ctimespec
        #else
            info.st_ctim
        #endif
    }
}
