import Foundation
import PassStorage
import Testing

struct StorageFileTests {
    /// A fresh, empty folder for each test.
    private let folder: URL
    private let temporary: TemporaryFolder

    init() throws {
        temporary = try TemporaryFolder()
        folder = temporary.url
    }

    @Test func readReturnsNilWhenNeverWritten() throws {
        let file = StorageFile(url: folder.appendingPathComponent("storage.json"))
        #expect(try file.read() == nil)
        // Reading creates nothing, not even the lock file.
        #expect(names(in: folder).isEmpty)
    }

    @Test func readReturnsTheLastWrittenBytes() throws {
        let file = StorageFile(url: folder.appendingPathComponent("storage.json"))
        try file.write(Data("first"))
        try file.write(Data("second, longer than the first"))
        try file.write(Data("third"))
        #expect(try file.read()?.text == "third")
        // Another value for the same URL sees the same document.
        #expect(try StorageFile(url: file.url).read()?.text == "third")
    }

    @Test func emptyContentIsNotTheSameAsNoDocument() throws {
        let file = StorageFile(url: folder.appendingPathComponent("empty"))
        try file.write(Data())
        #expect(try file.read() == Data())
    }

    @Test func largeContentRoundTrips() throws {
        let file = StorageFile(url: folder.appendingPathComponent("large.bin"))
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try file.write(bytes)
        #expect(try file.read() == bytes)
    }

    @Test func writeCreatesMissingFoldersWithOwnerOnlyModes() throws {
        let nested = folder.appendingPathComponent("a/b", isDirectory: true)
        let file = StorageFile(url: nested.appendingPathComponent("storage.json"))
        try file.write(Data("x"))
        #expect(mode(of: folder.appendingPathComponent("a")) == 0o700)
        #expect(mode(of: nested) == 0o700)
        #expect(mode(of: file.url) == 0o600)
        #expect(mode(of: file.lockURL) == 0o600)
    }

    @Test func writeLeavesOnlyTheDocumentAndItsLock() throws {
        let file = StorageFile(url: folder.appendingPathComponent("storage.json"))
        try file.write(Data("one"))
        try file.write(Data("two"))
        #expect(names(in: folder) == ["storage.json", "storage.json.lock"])
        #expect(file.lockURL.lastPathComponent == "storage.json.lock")
    }

    @Test func writeReplacesTheFileInsteadOfRewritingIt() throws {
        // Given a reader holding the old version open
        let file = StorageFile(url: folder.appendingPathComponent("storage.json"))
        try file.write(Data("old"))
        let reader = try FileHandle(forReadingFrom: file.url)
        defer { try? reader.close() }
        // When the document is written
        try file.write(Data("new!"))
        // Then the reader still sees the complete old version (a new inode was renamed in)
        #expect(try reader.readToEnd()?.text == "old")
        #expect(try file.read()?.text == "new!")
    }

    @Test func removeDeletesTheDocument() throws {
        let file = StorageFile(url: folder.appendingPathComponent("storage.json"))
        try file.write(Data("x"))
        try file.remove()
        #expect(try file.read() == nil)
        #expect(names(in: folder) == ["storage.json.lock"])
    }

    @Test func removeWhenAbsentIsNotAnError() throws {
        let file = StorageFile(url: folder.appendingPathComponent("missing/storage.json"))
        try file.remove()
        try file.remove()
        // Removing something that isn't there creates nothing.
        #expect(names(in: folder).isEmpty)
    }

    @Test func valuesForTheSameURLAreEqual() {
        let url = URL(filePath: "/tmp/device/storage.json")
        #expect(StorageFile(url: url) == StorageFile(url: url))
        #expect(StorageFile(url: url) != StorageFile(url: URL(filePath: "/tmp/device/other.json")))
        #expect(Set([StorageFile(url: url), StorageFile(url: url)]).count == 1)
        #expect(StorageFile(url: url).description == "/tmp/device/storage.json")
    }
}
