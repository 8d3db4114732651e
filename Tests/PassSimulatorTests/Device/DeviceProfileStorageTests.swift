import AccessEnabler
import Foundation
import PassSimulator
import PassStorage
import Testing

/// `loadOrCreate` against a real device folder in a fresh temporary directory per test.
struct DeviceProfileStorageTests {
    private let folder: DeviceFolder

    init() throws {
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("device-profile-\(UUID().uuidString)", isDirectory: true)
        folder = DeviceFolder(root: root)
    }

    @Test func theFirstUseCreatesAndSavesTheProfile() throws {
        defer { try? FileManager.default.removeItem(at: folder.root) }
        #expect(try folder.deviceProfile.read() == nil)
        let created = try DeviceProfile.loadOrCreate(in: folder, platform: .iOS, osVersion: "6.1")
        #expect(created.osVersion == "6.1")
        let saved = try #require(try folder.deviceProfile.read())
        #expect(try JSONDecoder().decode(DeviceProfile.self, from: saved) == created)
    }

    @Test func laterUsesReadTheSameDevice() throws {
        defer { try? FileManager.default.removeItem(at: folder.root) }
        let first = try DeviceProfile.loadOrCreate(in: folder, platform: .iOS, osVersion: nil)
        // A second app on the same device: nil keeps the stored version, the same version changes nothing
        #expect(try DeviceProfile.loadOrCreate(in: folder, platform: .iOS, osVersion: nil) == first)
        #expect(try DeviceProfile.loadOrCreate(in: folder, platform: .iOS, osVersion: first.osVersion) == first)
    }

    @Test func anExplicitNewOSVersionUpgradesTheDevice() throws {
        defer { try? FileManager.default.removeItem(at: folder.root) }
        // Given a phone on iOS 6
        let old = try DeviceProfile.loadOrCreate(in: folder, platform: .iOS, osVersion: "6.1.4")
        // When it is started on iOS 7
        let upgraded = try DeviceProfile.loadOrCreate(in: folder, platform: .iOS, osVersion: "7.0")
        // Then only the OS version changed, and the change was saved
        var expected = old
        expected.osVersion = "7.0"
        #expect(upgraded == expected)
        #expect(try DeviceProfile.loadOrCreate(in: folder, platform: .iOS, osVersion: nil) == expected)
    }

    @Test func anAppleTVFolderCannotBeOpenedAsAnIPhone() throws {
        defer { try? FileManager.default.removeItem(at: folder.root) }
        _ = try DeviceProfile.loadOrCreate(in: folder, platform: .tvOS, osVersion: nil)
        #expect(throws: DeviceProfile.LoadError.self) {
            try DeviceProfile.loadOrCreate(in: folder, platform: .iOS, osVersion: nil)
        }
    }

    @Test func anUnreadableProfileIsReportedAndKept() throws {
        defer { try? FileManager.default.removeItem(at: folder.root) }
        try folder.deviceProfile.write(Data("not json".utf8))
        #expect(throws: DeviceProfile.LoadError.self) {
            try DeviceProfile.loadOrCreate(in: folder, platform: .iOS, osVersion: "7.0")
        }
        #expect(try folder.deviceProfile.read() == Data("not json".utf8))
    }
}
