import Foundation
import PassStorage
import Testing

struct DeviceFolderTests {
    /// A fresh, empty folder for each test.
    private let folder: URL
    private let temporary: TemporaryFolder

    init() throws {
        temporary = try TemporaryFolder()
        folder = temporary.url
    }

    @Test func documentsLiveWhereTheLayoutSays() throws {
        let device = DeviceFolder(root: URL(filePath: "/phone", directoryHint: .isDirectory))
        #expect(device.deviceProfile.url.path == "/phone/device.json")
        #expect(try device.teamShared(teamID: "ABCDE12345").url.path == "/phone/shared/ABCDE12345/storage.json")
        #expect(
            try device.teamShared(teamID: "ABCDE12345", name: "v2.json").url.path == "/phone/shared/ABCDE12345/v2.json")
        #expect(try device.appPrivate(bundleID: "com.example.tv").url.path == "/phone/apps/com.example.tv/storage.json")
        #expect(try device.legacy("pasteboard-1.6.plist").url.path == "/phone/legacy/pasteboard-1.6.plist")
    }

    @Test func nothingIsCreatedBeforeTheFirstWrite() throws {
        let root = folder.appendingPathComponent("phone", isDirectory: true)
        let device = DeviceFolder(root: root)
        _ = try device.teamShared(teamID: "TEAM")
        #expect(try device.teamShared(teamID: "TEAM").read() == nil)
        #expect(try device.files().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: root.path))
    }

    @Test func theFirstWriteCreatesOwnerOnlyFolders() throws {
        let root = folder.appendingPathComponent("phone", isDirectory: true)
        let file = try DeviceFolder(root: root).teamShared(teamID: "TEAM")
        try file.write(Data("{}"))
        #expect(mode(of: root) == 0o700)
        #expect(mode(of: root.appendingPathComponent("shared")) == 0o700)
        #expect(mode(of: root.appendingPathComponent("shared/TEAM")) == 0o700)
        #expect(mode(of: file.url) == 0o600)
    }

    @Test func appsOfOneTeamShareItsPasteboardButNotTheirPrivateStorage() throws {
        // Given two apps of one team on one device (two DeviceFolder values, as two processes would have)
        let appA = DeviceFolder(root: folder)
        let appB = DeviceFolder(root: folder)
        // When app A writes to both domains
        try appA.teamShared(teamID: "TEAM").write(Data("sso token"))
        try appA.appPrivate(bundleID: "com.example.a").write(Data("a's defaults"))
        // Then app B sees the team's pasteboard, not A's private storage, and another team sees nothing
        #expect(try appB.teamShared(teamID: "TEAM").read()?.text == "sso token")
        #expect(try appB.appPrivate(bundleID: "com.example.b").read() == nil)
        #expect(try appB.teamShared(teamID: "OTHERTEAM").read() == nil)
    }

    @Test func filesListsEveryDocumentByKindAndSkipsLocksAndTemporaryFiles() throws {
        let device = DeviceFolder(root: folder)
        try device.legacy("v1.plist").write(Data("old"))
        try device.appPrivate(bundleID: "com.z.app").write(Data("z"))
        try device.appPrivate(bundleID: "com.a.app").write(Data("a"))
        try device.teamShared(teamID: "TEAM2").write(Data("22"))
        try device.teamShared(teamID: "TEAM1", name: "b.json").write(Data("b"))
        try device.teamShared(teamID: "TEAM1", name: "a.json").write(Data("a"))
        try device.deviceProfile.write(Data("{\"os\":\"17.4\"}"))
        try Data("half").write(to: folder.appendingPathComponent("shared/TEAM1/.a.json.tmp-1-2"))
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("legacy/some-folder"), withIntermediateDirectories: true)

        let entries = try device.files()

        #expect(entries.map(\.kind) == [.profile, .team, .team, .team, .app, .app, .legacy])
        #expect(entries.map(\.id) == [nil, "TEAM1", "TEAM1", "TEAM2", "com.a.app", "com.z.app", nil])
        #expect(
            entries.map(\.name) == [
                "device.json", "a.json", "b.json", "storage.json", "storage.json",
                "storage.json", "v1.plist",
            ])
        #expect(entries[0].size == 13)
        #expect(abs(entries[0].modified.timeIntervalSinceNow) < 60)
        #expect(try entries[6].file.read()?.text == "old")
        #expect(entries[3].file == (try device.teamShared(teamID: "TEAM2")))
    }

    @Test func entriesRoundTripThroughJSON() throws {
        let device = DeviceFolder(root: folder)
        try device.appPrivate(bundleID: "com.example.tv").write(Data("x"))
        let entries = try device.files()
        let decoded = try JSONDecoder().decode([DeviceFolder.Entry].self, from: JSONEncoder().encode(entries))
        #expect(decoded.map(\.url) == entries.map(\.url))
        #expect(decoded.map(\.kind) == [.app])
    }

    static let invalidNames = [
        "", ".", "..", "../x", "a/b", "/abs", "a\0b", "tab\there", ".hidden", "storage.lock",
        String(repeating: "x", count: 201),
    ]

    @Test(arguments: invalidNames)
    func invalidTeamIDsAreRejected(name: String) throws {
        let device = DeviceFolder(root: URL(filePath: "/phone", directoryHint: .isDirectory))
        let error = try #require(throws: StorageError.self) { try device.teamShared(teamID: name) }
        #expect(error.code == .invalidName)
        #expect(error.errno == nil)
        #expect(error.message.contains("team ID"))
        #expect(error.message.contains("/phone/shared"))
        #expect(error.path.hasPrefix("/phone/shared"))
    }

    @Test(arguments: invalidNames)
    func invalidBundleIDsAndFileNamesAreRejected(name: String) throws {
        let device = DeviceFolder(root: URL(filePath: "/phone", directoryHint: .isDirectory))
        let bundleError = try #require(throws: StorageError.self) { try device.appPrivate(bundleID: name) }
        #expect(bundleError.code == .invalidName)
        #expect(bundleError.message.contains("bundle ID"))
        #expect(throws: StorageError.self) { try device.appPrivate(bundleID: "com.example", name: name) }
        #expect(throws: StorageError.self) { try device.teamShared(teamID: "TEAM", name: name) }
        let legacyError = try #require(throws: StorageError.self) { try device.legacy(name) }
        #expect(legacyError.message.contains("/phone/legacy"))
    }

    @Test func ordinaryIDsAreAccepted() throws {
        let device = DeviceFolder(root: URL(filePath: "/phone", directoryHint: .isDirectory))
        _ = try device.teamShared(teamID: "ABCDE12345")
        _ = try device.appPrivate(bundleID: "com.example.my-app_2")
        _ = try device.appPrivate(bundleID: "tv.émission.app")
        _ = try device.legacy("pasteboard v1.6.plist")
        _ = try device.teamShared(teamID: String(repeating: "x", count: 200))
    }
}
