import Foundation
import WireDates
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// Serves the files under one root folder: content types, `ETag`/`Last-Modified` revalidation, and no way out of
/// the root (`..` segments are refused with `403`; a symlink that resolves outside the root is `404`).
///
/// Small files are kept in memory and revalidated with one `stat` per request (or, with a `revalidation` window,
/// at most once per window, as nginx's `open_file_cache_valid`), so a hot file is not reopened; larger ones are
/// sent from disk with `sendfile`.
public final class StaticFiles: Sendable {
    /// The resolved root folder.
    public let root: String
    /// Sent as `Cache-Control`; browsers revalidate with the `ETag`.
    public let cacheControl: String
    /// How long a file's `stat` is trusted: zero checks the disk on every request.
    public let revalidation: Duration
    /// Headers every answer carries besides the file's own (a `Content-Security-Policy` for pages).
    public let headers: [(name: String, value: String)]
    private let cache = Mutex<[String: CachedFile]>([:])
    /// Recent answers of ``locate`` by requested path (one second): resolving costs four `readlink` calls per request.
    private let resolved = Mutex<[String: Resolved]>([:])
    private static let cacheableSize: UInt64 = 256 * 1024
    private static let cacheEntries = 512

    struct Resolved {
        var path: String
        var at: ContinuousClock.Instant
        var info: stat
        var checked: ContinuousClock.Instant
    }

    struct CachedFile {
        var size: UInt64
        var mtime: Int
        var nanos: Int
        var data: Data
        /// The answer's headers, built once per file version (the date and ETag formatting were a large part
        /// of a cached answer's cost).
        var etag: String
        var headers: [(name: String, value: String)]
        /// The `200` answer built once for libmicrohttpd.
        var prepared: PreparedResponse
    }

    /// Creates a file server for `root` (resolved now; a missing root serves nothing but `404`s).
    ///
    /// - Parameter revalidation: How long a file's size and time are trusted before the disk is asked again; a
    ///   changed file is served at most this late. Zero (the default) asks on every request.
    /// - Parameter headers: Sent with every file (and its `304`), after the file's own headers.
    public init(root: String, cacheControl: String = "no-cache", revalidation: Duration = .zero,
        headers: [(name: String, value: String)] = [])
    {
        self.root = Self.resolve(root) ?? root
        self.cacheControl = cacheControl
        self.revalidation = revalidation
        self.headers = headers
    }

    /// The answer for `relativePath` (decoded, starting with `/`).
    public func response(for relativePath: String, request: Request) -> Response {
        if Self.leavesRoot(relativePath) {
            return HTTPError(.forbidden, code: "path_forbidden", message: "Paths may not leave the served folder.")
                .response
        }
        var info = stat()
        guard let path = locate(relativePath, &info) else { return notFound(relativePath) }
        return fileResponse(path: path, size: UInt64(info.st_size), mtime: Int(info.st_mtim.tv_sec),
            nanos: Int(info.st_mtim.tv_nsec), request: request)
    }

    /// Whether a segment of `path` is `..` or `.`, or holds a NUL or a backslash (bytes only: no allocation).
    static func leavesRoot(_ path: String) -> Bool {
        var segmentLength = 0, dots = 0
        for byte in path.utf8 {
            if byte == UInt8(ascii: "/") {
                if segmentLength > 0, dots == segmentLength, dots <= 2 { return true }
                segmentLength = 0
                dots = 0
                continue
            }
            if byte == 0 || byte == 0x5C { return true }
            segmentLength += 1
            if byte == UInt8(ascii: ".") { dots += 1 }
        }
        return segmentLength > 0 && dots == segmentLength && dots <= 2
    }

    /// The regular file inside the root that `relativePath` names (a folder's `index.html`), its `stat` in `info`.
    private func locate(_ relativePath: String, _ info: inout stat) -> String? {
        let now = ContinuousClock.now
        if let hit = resolved.withLock({ $0[relativePath] }) {
            // Checked within the revalidation window: no system call at all.
            if now - hit.checked < revalidation {
                info = hit.info
                return hit.path
            }
            // Resolved within the last second: one `stat` instead of `realpath`'s `readlink` calls.
            if now - hit.at < .seconds(1), stat(hit.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
                let checked = info
                resolved.withLock { $0[relativePath]?.info = checked; $0[relativePath]?.checked = now }
                return hit.path
            }
        }
        let components = relativePath.split(separator: "/", omittingEmptySubsequences: true)
        guard var path = Self.resolve(root + "/" + components.joined(separator: "/")), isInsideRoot(path),
            stat(path, &info) == 0
        else { return nil }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            guard let index = Self.resolve(path + "/index.html"), isInsideRoot(index), stat(index, &info) == 0 else { return nil }
            path = index
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        // A cached answer is always a file inside the root, so staleness can only serve an in-root file.
        resolved.withLock { entries in
            if entries.count >= 1024 { entries.removeAll() }
            entries[relativePath] = Resolved(path: path, at: now, info: info, checked: now)
        }
        return path
    }

    private func isInsideRoot(_ path: String) -> Bool { path == root || path.hasPrefix(root + "/") }

    private func fileResponse(path: String, size: UInt64, mtime: Int, nanos: Int, request: Request) -> Response {
        let cacheable = size <= Self.cacheableSize
        var hit = cacheable ? cache.withLock({ $0[path] }) : nil
        if let cached = hit, cached.size != size || cached.mtime != mtime || cached.nanos != nanos { hit = nil }
        let etag = hit?.etag ?? "\"\(String(size, radix: 16))-\(String(mtime, radix: 16))-\(String(nanos, radix: 16))\""
        let headers = hit?.headers ?? [
            ("Content-Type", MIMEType.forPath(path)), ("ETag", etag),
            ("Last-Modified", HTTPDate.format(Date(timeIntervalSince1970: TimeInterval(mtime)))),
            ("Cache-Control", cacheControl), ("X-Content-Type-Options", "nosniff"),
        ] + self.headers
        if let match = request.header("If-None-Match") {
            if match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag }) {
                return Response(status: .notModified, headers: headers)
            }
        } else if let since = request.header("If-Modified-Since"), let date = HTTPDate.parse(since),
            Int(date.timeIntervalSince1970) >= mtime
        {
            return Response(status: .notModified, headers: headers)
        }
        guard cacheable else { return Response(headers: headers, body: .file(path: path, size: size)) }
        if let hit {
            var response = Response(headers: headers, body: .data(hit.data))
            response.prepared = hit.prepared
            return response
        }
        guard let data = FileManager.default.contents(atPath: path) else { return notFound(path) }
        let prepared = PreparedResponse(headers: headers, data: data)
        cache.withLock { entries in
            if entries.count >= Self.cacheEntries { entries.removeAll() }
            entries[path] = CachedFile(
                size: size, mtime: mtime, nanos: nanos, data: data, etag: etag, headers: headers, prepared: prepared)
        }
        var response = Response(headers: headers, body: .data(data))
        response.prepared = prepared
        return response
    }

    private func notFound(_ path: String) -> Response {
        HTTPError(.notFound, code: "file_not_found", message: "No such file.", detail: path).response
    }

    private static func resolve(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
