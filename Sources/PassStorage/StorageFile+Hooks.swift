import Foundation

extension StorageFile {
    /// Fault injection for tests (`@testable import PassStorage`): simulates a crash in the middle of a write.
    ///
    /// ```swift
    /// var file = StorageFile(url: url)
    /// file.hooks.interrupt = { point, _ in
    ///     if point == .halfWritten { throw StorageError(code: .ioFailure, message: "Simulated crash", path: "") }
    /// }
    /// ```
    /// When the hook throws, the write stops right there, as if the process had died: the temporary file is left
    /// behind, half or fully written, and the document is never renamed over. Production code never sets a hook.
    struct Hooks: Sendable {
        /// Where in a write the hook runs.
        enum Point: Sendable, Hashable {
            /// After the first half of the bytes reached the temporary file, before the rest.
            case halfWritten
            /// After the temporary file was completely written, synced and closed, before the rename.
            case beforeRename
        }

        /// Called at each ``Point`` of every write with the temporary file's URL; throwing simulates a crash.
        var interrupt: (@Sendable (Point, URL) throws(StorageError) -> Void)?
    }
}
