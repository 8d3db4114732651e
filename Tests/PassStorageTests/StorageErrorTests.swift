import Foundation
import Testing

@testable import PassStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct StorageErrorTests {
    /// A fresh, empty folder for each test.
    private let folder: URL
    private let temporary: TemporaryFolder

    init() throws {
        temporary = try TemporaryFolder()
        folder = temporary.url
    }

    @Test func readingAFolderIsAWrongFileTypeErrorNamingThePath() throws {
        let url = folder.appendingPathComponent("storage.json", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        let error = try #require(throws: StorageError.self) { try StorageFile(url: url).read() }
        #expect(error.code == .wrongFileType)
        #expect(error.path == StorageFile(url: url).url.path(percentEncoded: false))
        #expect(error.message.contains(folder.appendingPathComponent("storage.json").path))
        #expect(error.message.contains("folder"))
    }

    @Test func writingOverAFolderFailsAndLeavesNoTempFile() throws {
        let url = folder.appendingPathComponent("storage.json")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        let error = try #require(throws: StorageError.self) { try StorageFile(url: url).write(Data("x")) }
        #expect(error.code == .wrongFileType)
        #expect(error.errno != nil)
        #expect(error.message.contains(url.path))
        #expect(names(in: folder) == ["storage.json", "storage.json.lock"])
    }

    @Test func writingBelowADocumentFails() throws {
        // Given a document where a folder should be
        let blocker = folder.appendingPathComponent("apps")
        try Data("not a folder").write(to: blocker)
        let file = StorageFile(url: blocker.appendingPathComponent("com.example/storage.json"))
        // Then writing, updating and reading all fail with the path named, and the document is intact
        let writeError = try #require(throws: StorageError.self) { try file.write(Data("x")) }
        #expect(writeError.code == .wrongFileType)
        #expect(writeError.message.contains(blocker.path))
        #expect(throws: StorageError.self) { try file.update { _ in Data("x") } }
        let readError = try #require(throws: StorageError.self) { try file.read() }
        #expect(readError.code == .wrongFileType)
        #expect(try Data(contentsOf: blocker).text == "not a folder")
    }

    @Test(.enabled(if: !isRoot, "root ignores permission bits, so the folder would be writable"))
    func writingIntoAReadOnlyFolderIsNotAccessible() throws {
        // Given a document in a folder that became read-only
        let file = StorageFile(url: folder.appendingPathComponent("data/storage.json"))
        try file.write(Data("kept"))
        let data = folder.appendingPathComponent("data")
        chmod(data.path, 0o500)
        defer { chmod(data.path, 0o700) }
        // Then a write fails, naming the folder, and the document keeps its bytes
        let error = try #require(throws: StorageError.self) { try file.write(Data("lost")) }
        #expect(error.code == .notAccessible)
        #expect(error.errno == EACCES)
        #expect(error.message.contains(data.path))
        #expect(try file.read()?.text == "kept")
    }

    @Test(.enabled(if: !isRoot, "root ignores permission bits, so the folder would be writable"))
    func creatingAFolderInsideAReadOnlyFolderIsNotAccessible() throws {
        chmod(folder.path, 0o500)
        defer { chmod(folder.path, 0o700) }
        let error = try #require(throws: StorageError.self) {
            try DeviceFolder(root: folder).appPrivate(bundleID: "com.example.app").write(Data("x"))
        }
        #expect(error.code == .notAccessible)
        #expect(error.message.contains(folder.appendingPathComponent("apps").path))
    }

    @Test(arguments: [
        (EACCES, StorageError.Code.notAccessible), (EPERM, .notAccessible), (EROFS, .notAccessible),
        (EISDIR, .wrongFileType), (ENOTDIR, .wrongFileType), (ENOSPC, .ioFailure), (EIO, .ioFailure),
    ])
    func systemErrorsMapToCodes(errno: Int32, code: StorageError.Code) {
        let error = StorageError.system("write", path: "/device/storage.json", errno: errno)
        #expect(error.code == code)
        #expect(error.errno == errno)
        #expect(error.path == "/device/storage.json")
        #expect(error.message.hasPrefix("Could not write '/device/storage.json': "))
    }

    @Test func descriptionShowsCodeMessageAndErrno() {
        let error = StorageError.system("lock", path: "/d/storage.json.lock", errno: EBADF, code: .lockFailure)
        #expect(error.description.hasPrefix("lockFailure: Could not lock '/d/storage.json.lock': "))
        #expect(error.description.hasSuffix("(errno \(EBADF))"))
        let plain = StorageError(code: .invalidName, message: "Invalid team ID.", path: "/d")
        #expect(plain.description == "invalidName: Invalid team ID.")
    }
}
