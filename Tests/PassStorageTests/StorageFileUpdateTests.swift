import Foundation
import PassStorage
import Testing

struct StorageFileUpdateTests {
    /// A fresh, empty folder for each test.
    private let folder: URL
    private let temporary: TemporaryFolder

    init() throws {
        temporary = try TemporaryFolder()
        folder = temporary.url
    }

    @Test func updateGetsNilForAMissingDocumentAndReturnsWhatItWrote() throws {
        let file = StorageFile(url: folder.appendingPathComponent("new/storage.json"))
        var seen: Data?? = .none
        let written = try file.update { current in
            seen = current
            return Data("created")
        }
        #expect(seen == .some(nil))
        #expect(written?.text == "created")
        #expect(try file.read()?.text == "created")
    }

    @Test func updateGetsTheCurrentBytes() throws {
        let file = StorageFile(url: folder.appendingPathComponent("storage.json"))
        try file.write(Data("a"))
        try file.update { ($0 ?? Data()) + Data("b") }
        try file.update { ($0 ?? Data()) + Data("c") }
        #expect(try file.read()?.text == "abc")
    }

    @Test func updateReturningNilDeletesTheDocument() throws {
        let file = StorageFile(url: folder.appendingPathComponent("storage.json"))
        try file.write(Data("x"))
        let written = try file.update { _ in nil }
        #expect(written == nil)
        #expect(try file.read() == nil)
    }

    @Test func aThrowingTransformLeavesTheDocumentAndRethrows() throws {
        struct Refused: Error {}
        let file = StorageFile(url: folder.appendingPathComponent("storage.json"))
        try file.write(Data("kept"))
        #expect(throws: Refused.self) {
            try file.update { _ in throw Refused() }
        }
        #expect(try file.read()?.text == "kept")
        // The lock was released: the next update doesn't wait forever.
        try file.update { _ in Data("next") }
        #expect(try file.read()?.text == "next")
    }
}
