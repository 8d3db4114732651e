import Foundation

/// The simulated device's folder: what `passconsole flow --device DIR` points at.
///
/// ```
/// DIR/device.json                the hardware profile
/// DIR/shared/<teamID>/<name>     the team's "pasteboard" (iOS): shared by every app of the team on this device
/// DIR/apps/<bundleID>/<name>     the app's private "user defaults" (tvOS; per-app data on iOS)
/// DIR/legacy/<name>              older storage versions the importer reads
/// ```
///
/// Two processes given the same `DIR` are two apps on one phone; a console opening `DIR` sees exactly what they see.
/// Nothing is created until the first write, and folders are then created with mode `0700`, documents with `0600`.
///
/// ```swift
/// let device = DeviceFolder(root: URL(filePath: "/tmp/phone"))
/// let pasteboard = try device.teamShared(teamID: "ABCDE12345")
/// try pasteboard.update { current in … }
/// ```
///
/// Team IDs, bundle IDs and file names are checked before they become paths: empty names, `.`, `..`, names with a
/// `/` or a control character, names starting with `.` or ending in `.lock` are rejected with
/// ``StorageError/Code/invalidName``, so no name can reach outside its folder.
public struct DeviceFolder: Sendable, Hashable {
    /// The device folder (`DIR`).
    public let root: URL

    /// Creates a value for the device folder at `root` without touching the disk.
    ///
    /// - Parameter root: A file URL; the folder and its subfolders are created on the first write.
    public init(root: URL) {
        self.root = root
    }

    /// The device's hardware profile, `DIR/device.json`.
    public var deviceProfile: StorageFile {
        StorageFile(url: root.appendingPathComponent("device.json", isDirectory: false))
    }

    /// The team's shared "pasteboard" (iOS), `DIR/shared/<teamID>/<name>`.
    ///
    /// One document per team ID, shared by every app of the team on this device: since iOS 7 only apps with the same
    /// Team ID share tokens.
    ///
    /// - Parameters:
    ///   - teamID: The apps' Team ID (bundle seed ID), such as `"ABCDE12345"`.
    ///   - name: The document's file name.
    /// - Throws: ``StorageError`` with ``StorageError/Code/invalidName`` when `teamID` or `name` is not a plain name.
    public func teamShared(teamID: String, name: String = "storage.json") throws(StorageError) -> StorageFile {
        try document(name, in: "shared", owner: teamID, as: "team ID")
    }

    /// The app's private "user defaults" (tvOS, and per-app data on iOS), `DIR/apps/<bundleID>/<name>`.
    ///
    /// - Parameters:
    ///   - bundleID: The app's bundle ID, such as `"com.example.tv"`.
    ///   - name: The document's file name.
    /// - Throws: ``StorageError`` with ``StorageError/Code/invalidName`` when `bundleID` or `name` is not a plain
    ///   name.
    public func appPrivate(bundleID: String, name: String = "storage.json") throws(StorageError) -> StorageFile {
        try document(name, in: "apps", owner: bundleID, as: "bundle ID")
    }

    /// A document of an older storage version, `DIR/legacy/<name>`, for the importer to read.
    ///
    /// - Parameter name: The document's file name.
    /// - Throws: ``StorageError`` with ``StorageError/Code/invalidName`` when `name` is not a plain name.
    public func legacy(_ name: String) throws(StorageError) -> StorageFile {
        let folder = root.appendingPathComponent(Kind.legacy.folderName, isDirectory: true)
        try StorageName.validate(name, as: "file name", in: folder)
        return StorageFile(url: folder.appendingPathComponent(name, isDirectory: false))
    }

    private func document(
        _ name: String,
        in area: String,
        owner: String,
        as role: String
    ) throws(StorageError) -> StorageFile {
        let areaFolder = root.appendingPathComponent(area, isDirectory: true)
        try StorageName.validate(owner, as: role, in: areaFolder)
        let folder = areaFolder.appendingPathComponent(owner, isDirectory: true)
        try StorageName.validate(name, as: "file name", in: folder)
        return StorageFile(url: folder.appendingPathComponent(name, isDirectory: false))
    }
}

extension DeviceFolder {
    typealias Kind = Entry.Kind
}

extension DeviceFolder.Entry.Kind {
    /// The folder under the root that holds this kind; empty for the profile, which sits in the root itself.
    var folderName: String {
        switch self {
        case .profile: ""
        case .team: "shared"
        case .app: "apps"
        case .legacy: "legacy"
        }
    }
}
