import Foundation
import PassStorage
import Locking
import Testing

/// A reader decodes the document again only when it changed, however it changed.
struct StorageReaderTests {
    private let temporary: TemporaryFolder
    private let file: StorageFile
    /// Every decode, with the text it was given (`nil`: no document).
    private let decodes = Decodes()

    final class Decodes: Sendable {
        private let list = Mutex<[String?]>([])
        func add(_ text: String?) { list.withLock { $0.append(text) } }
        var count: Int { list.withLock { $0.count } }
    }

    init() throws {
        temporary = try TemporaryFolder()
        file = StorageFile(url: temporary.url.appendingPathComponent("storage.json"))
    }

    private func reader() -> StorageReader<String?> {
        let decodes = decodes
        return StorageReader(file: file) { data in
            let text = data.map { String(decoding: $0, as: UTF8.self) }
            decodes.add(text)
            if text == "damaged" { throw StorageError(code: .ioFailure, message: "damaged", path: "") }
            return text
        }
    }

    private var decodeCount: Int { decodes.count }

    @Test func anUnchangedDocumentIsDecodedOnce() throws {
        try file.write(Data("one"))
        let reader = reader()
        #expect(try reader.load() == "one")
        #expect(try reader.load() == "one")
        #expect(try reader.load() == "one")
        #expect(decodeCount == 1)
    }

    @Test func aDocumentReplacedByAnotherWriterIsReadAgainEvenWithTheSameSize() throws {
        try file.write(Data("aaa"))
        let reader = reader()
        #expect(try reader.load() == "aaa")
        // Another writer (another StorageFile value, as in another process) replaces it with bytes of the same length,
        // twice in a row
        try StorageFile(url: file.url).write(Data("bbb"))
        try StorageFile(url: file.url).write(Data("ccc"))
        #expect(try reader.load() == "ccc")
        #expect(decodeCount == 2)
    }

    @Test func aRemovedDocumentReadsAsNone() throws {
        try file.write(Data("one"))
        let reader = reader()
        #expect(try reader.load() == "one")
        try file.remove()
        #expect(try reader.load() == nil)
        try file.write(Data("two"))
        #expect(try reader.load() == "two")
    }

    @Test func aDocumentRewrittenInPlaceWithTheSameSizeIsReadAgain() async throws {
        try file.write(Data("12345"))
        let reader = reader()
        #expect(try reader.load() == "12345")
        try await Task.sleep(for: .milliseconds(50))  // past the file system's timestamp tick
        let handle = try FileHandle(forWritingTo: file.url)
        try handle.write(contentsOf: Data("abcde"))
        try handle.close()
        #expect(try reader.load() == "abcde")
    }

    @Test func aDocumentWhosePathNowNamesAnotherFileIsReadAgain() throws {
        // The document is a link to a file; a write replaces the link itself with the new document
        let target = temporary.url.appendingPathComponent("real.json")
        try Data("through the link").write(to: target)
        try FileManager.default.createSymbolicLink(at: file.url, withDestinationURL: target)
        let reader = reader()
        #expect(try reader.load() == "through the link")
        try StorageFile(url: file.url).write(Data("replaced"))
        #expect(try reader.load() == "replaced")
        // The folder holding the document moves away and a new one takes its place
        let moved = temporary.url.appendingPathComponent("moved")
        let folderFile = StorageFile(url: temporary.url.appendingPathComponent("phone/storage.json"))
        try folderFile.write(Data("old phone"))
        let folderReader = StorageReader<String?>(file: folderFile) { $0.map { String(decoding: $0, as: UTF8.self) } }
        #expect(try folderReader.load() == "old phone")
        try FileManager.default.moveItem(at: folderFile.url.deletingLastPathComponent(), to: moved)
        try StorageFile(url: folderFile.url).write(Data("new phone"))
        #expect(try folderReader.load() == "new phone")
    }

    @Test func theReaderHoldsOneDescriptorAndClosesItWhenItGoes() throws {
        guard FileManager.default.fileExists(atPath: "/proc/self/fd") else { return }  // Linux's view of open files
        let folder = temporary.url.lastPathComponent  // unique (mkdtemp)
        // Descriptors of this process open on files of this test's folder (replaced ones show as "… (deleted)")
        let openHere = {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).filter {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)"))?.contains(folder) == true
            }.count
        }
        try file.write(Data("v0"))
        var reader: StorageReader<String?>? = self.reader()
        for version in 1...20 {
            try file.write(Data("v\(version)"))
            #expect(try reader?.load() == "v\(version)")
        }
        #expect(openHere() == 1, "one kept file, whatever was read before it")
        reader = nil
        #expect(openHere() == 0)
    }

    @Test func aDocumentRewrittenInPlaceIsReadAgain() throws {
        try file.write(Data("short"))
        let reader = reader()
        #expect(try reader.load() == "short")
        // Another tool truncates and rewrites the same file, without a rename
        let handle = try FileHandle(forWritingTo: file.url)
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data("a longer text"))
        try handle.close()
        #expect(try reader.load() == "a longer text")
    }

    @Test func aDocumentThatCannotBeDecodedIsTriedAgainNextTime() throws {
        try file.write(Data("damaged"))
        let reader = reader()
        #expect(throws: StorageError.self) { try reader.load() }
        #expect(throws: StorageError.self) { try reader.load() }
        #expect(decodeCount == 2, "a failed decode is not kept")
        try file.write(Data("repaired"))
        #expect(try reader.load() == "repaired")
    }

    @Test func noDocumentYetThenOne() throws {
        let reader = reader()
        #expect(try reader.load() == nil)
        try file.write(Data("first"))
        #expect(try reader.load() == "first")
    }
}
