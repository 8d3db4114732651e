import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension DeviceFolder {
    /// One storage document found under a device folder, as listed by ``DeviceFolder/files()``.
    public struct Entry: Sendable, Hashable, Codable {
        /// Which part of the device folder a document belongs to.
        public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
            /// `DIR/device.json`, the hardware profile.
            case profile
            /// `DIR/shared/<teamID>/…`, a team's shared pasteboard.
            case team
            /// `DIR/apps/<bundleID>/…`, an app's private storage.
            case app
            /// `DIR/legacy/…`, an older storage version.
            case legacy
        }

        /// Which part of the device folder the document belongs to.
        public var kind: Kind
        /// The team ID for ``Kind/team``, the bundle ID for ``Kind/app``, `nil` otherwise.
        public var id: String?
        /// The document's file name.
        public var name: String
        /// Where the document is.
        public var url: URL
        /// The document's size in bytes when listed.
        public var size: Int
        /// When the document was last replaced, as of listing.
        public var modified: Date

        /// The document, to read, update or remove.
        public var file: StorageFile { StorageFile(url: url) }
    }

    /// Every storage document under the folder, for a console to list.
    ///
    /// Lists `device.json`, the documents directly inside each `shared/<teamID>/` and `apps/<bundleID>/` folder, and
    /// those directly inside `legacy/`, in that order, then by ID and name. Lock files, leftover temporary files,
    /// hidden files and anything that isn't a regular file are left out. A missing root lists as empty.
    ///
    /// - Returns: The documents found, sorted by kind, ID, then name.
    /// - Throws: ``StorageError`` when a folder exists but can't be listed or a document can't be inspected.
    public func files() throws(StorageError) -> [Entry] {
        var entries: [Entry] = []
        if let profile = try entry(at: deviceProfile.url, kind: .profile, id: nil) { entries.append(profile) }
        for kind in [Kind.team, .app] {
            let area = root.appendingPathComponent(kind.folderName, isDirectory: true)
            for owner in try listing(of: area) {
                let folder = area.appendingPathComponent(owner, isDirectory: true)
                guard try Self.isFolder(folder) else { continue }
                for name in try listing(of: folder) {
                    let url = folder.appendingPathComponent(name, isDirectory: false)
                    if let found = try entry(at: url, kind: kind, id: owner) { entries.append(found) }
                }
            }
        }
        let legacyFolder = root.appendingPathComponent(Kind.legacy.folderName, isDirectory: true)
        for name in try listing(of: legacyFolder) {
            let url = legacyFolder.appendingPathComponent(name, isDirectory: false)
            if let found = try entry(at: url, kind: .legacy, id: nil) { entries.append(found) }
        }
        let order = Dictionary(uniqueKeysWithValues: Kind.allCases.enumerated().map { ($1, $0) })
        return entries.sorted {
            (order[$0.kind]!, $0.id ?? "", $0.name) < (order[$1.kind]!, $1.id ?? "", $1.name)
        }
    }

    /// The visible names in `folder`: no hidden files (temporary files start with `.`) and no lock files.
    private func listing(of folder: URL) throws(StorageError) -> [String] {
        let names = try FileSystemCalls.listFolder(folder.path(percentEncoded: false)) ?? []
        return names.filter { !$0.hasPrefix(".") && !$0.hasSuffix(".lock") }
    }

    /// An entry for `url` when it is a regular file, `nil` when it is absent or something else.
    private func entry(at url: URL, kind: Kind, id: String?) throws(StorageError) -> Entry? {
        guard let info = try FileSystemCalls.status(url.path(percentEncoded: false)),
            info.st_mode & S_IFMT == S_IFREG
        else { return nil }
        #if canImport(Darwin)
            let modified = info.st_mtimespec
        #else
            let modified = info.st_mtim
        #endif
        return Entry(
            kind: kind,
            id: id,
            name: url.lastPathComponent,
            url: url,
            size: Int(info.st_size),
            modified: Date(timeIntervalSince1970: Double(modified.tv_sec) + Double(modified.tv_nsec) / 1e9)
        )
    }

    private static func isFolder(_ url: URL) throws(StorageError) -> Bool {
        guard let info = try FileSystemCalls.status(url.path(percentEncoded: false)) else { return false }
        return info.st_mode & S_IFMT == S_IFDIR
    }
}
