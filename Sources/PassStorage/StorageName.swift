import Foundation

/// Checks the names callers put into paths (team IDs, bundle IDs, file names), so none can leave its folder.
enum StorageName {
    /// The longest accepted name, in UTF-8 bytes: leaves room under `NAME_MAX` (255) for `.lock` and the
    /// temporary-file suffix.
    static let maximumLength = 200

    /// Throws unless `name` is one plain path component that can't clash with PassStorage's own files.
    ///
    /// Rejected: the empty string, `.` and `..`, anything containing `/` or a control character (NUL included),
    /// names starting with `.` (reserved for temporary files), names ending in `.lock` (reserved for lock files), and
    /// names longer than ``maximumLength`` bytes.
    ///
    /// - Parameters:
    ///   - name: The candidate.
    ///   - role: What it is, for the message: `"team ID"`, `"bundle ID"`, `"file name"`.
    ///   - folder: The folder it would go into, named in the message.
    /// - Throws: ``StorageError`` with ``StorageError/Code/invalidName``.
    static func validate(_ name: String, as role: String, in folder: URL) throws(StorageError) {
        guard let problem = problem(with: name) else { return }
        let folderPath = folder.path(percentEncoded: false)
        throw StorageError(
            code: .invalidName,
            message: "Invalid \(role) \(name.debugDescription) for '\(folderPath)': \(problem).",
            path: folderPath
        )
    }

    /// Why `name` is rejected, or `nil` when it is fine.
    static func problem(with name: String) -> String? {
        if name.isEmpty { return "it is empty" }
        if name == "." || name == ".." { return "it names a folder, not an entry in one" }
        if name.contains("/") { return "it contains a '/'" }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "it contains a control character"
        }
        if name.hasPrefix(".") { return "names starting with '.' are reserved for temporary files" }
        if name.hasSuffix(".lock") { return "names ending in '.lock' are reserved for lock files" }
        if name.utf8.count > maximumLength { return "it is longer than \(maximumLength) bytes" }
        return nil
    }
}
