import Foundation
import Locking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a document and keeps what it decoded, reading again only when the document may have changed: an app reads
/// its storage on every call, and another process may change it at any time.
///
/// The reader keeps the file it last read open and, on each read, compares it with what the document's path names
/// now (`stat` of the path against `fstat` of the kept file: device and inode). Every write of a ``StorageFile``
/// renames a new file over the document and ``StorageFile/remove()`` deletes it, so a changed document is another
/// inode — and while the old one is held open its inode number cannot be reused, so a new document is never mistaken
/// for it. The path moving elsewhere (a folder moved, a link changed) is caught the same way. A document rewritten in
/// place by some other tool is caught by its size and change time, as fine as the file system keeps them (a rewrite of
/// the same size within one timestamp tick would be missed; StorageFile never writes in place). Two system calls per
/// read while nothing changed, instead of open, read, close and a decode. The kept file is one open descriptor per
/// reader (close-on-exec), closed when the reader goes.
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
                var open = stat()
                var named = stat()
                if fstat(current.fd, &open) == 0, stat(file.path, &named) == 0, open.st_dev == named.st_dev, open.st_ino == named.st_ino,
                    Int(open.st_size) == current.size, Self.changeTime(open).tv_sec == current.changed.tv_sec,
                    Self.changeTime(open).tv_nsec == current.changed.tv_nsec
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
