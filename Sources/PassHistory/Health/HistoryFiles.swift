import Foundation

/// The history's files on disk: the database, SQLite's companions (`-wal`, `-shm`, `-journal`), and damaged files
/// moved aside. They hold storage backups with live tokens, so each is readable by its owner only (0600), like the
/// device's token files.
enum HistoryFiles {
    static let mode: mode_t = 0o600
    static let suffixes = ["", "-wal", "-shm", "-journal"]

    /// Creates the database file 0600 when missing, whatever the umask (SQLite creates `-wal`, `-shm` and `-journal`
    /// with the main file's mode), and narrows an existing file and companions to 0600. A file this process may not
    /// change is left as it is: opening it reports what is wrong.
    static func secure(_ path: String) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, mode)
        if descriptor >= 0 { close(descriptor) }
        for suffix in suffixes { _ = chmod(path + suffix, mode) }
    }

    /// Moves the database and its companions to `path.damaged-STAMP` (and `-wal`, `-shm` after it, so SQLite's
    /// tools open the set as one database), 0600. Returns the new database path.
    static func moveAside(_ path: String, at date: Date) throws -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        var aside = "\(path).damaged-\(formatter.string(from: date))"
        var counter = 1
        while FileManager.default.fileExists(atPath: aside) {
            counter += 1
            aside = "\(path).damaged-\(formatter.string(from: date))-\(counter)"
        }
        for suffix in suffixes where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.moveItem(atPath: path + suffix, toPath: aside + suffix)
            _ = chmod(aside + suffix, mode)
        }
        return aside
    }
}
