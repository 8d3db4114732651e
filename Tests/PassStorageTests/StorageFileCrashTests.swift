import Foundation
import Testing

@testable import PassStorage

/// A crash in the middle of a write must leave the last good version readable.
struct StorageFileCrashTests {
    /// A fresh, empty folder for each test.
    private let folder: URL
    private let temporary: TemporaryFolder

    init() throws {
        temporary = try TemporaryFolder()
        folder = temporary.url
    }

    /// A file whose writes "crash" (the hook throws) at `point`.
    private func crashing(_ url: URL, at point: StorageFile.Hooks.Point) -> StorageFile {
        var file = StorageFile(url: url)
        file.hooks.interrupt = { (reached, _) throws(StorageError) in
            if reached == point { throw simulatedCrash }
        }
        return file
    }

    private func temporaryFiles(in folder: URL) -> [String] {
        names(in: folder).filter { $0.hasPrefix(".storage.json.tmp-") }
    }

    @Test(arguments: [StorageFile.Hooks.Point.halfWritten, .beforeRename])
    func aCrashDuringWriteKeepsThePreviousBytes(at point: StorageFile.Hooks.Point) throws {
        // Given a document with a good version
        let url = folder.appendingPathComponent("storage.json")
        try StorageFile(url: url).write(Data("good version"))
        // When a write dies at `point`
        let newBytes = Data("a new version that never makes it")
        #expect(throws: simulatedCrash) {
            try crashing(url, at: point).write(newBytes)
        }
        // Then the document still reads as the good version, and the dead write's temp file is left behind
        #expect(try StorageFile(url: url).read()?.text == "good version")
        let leftovers = temporaryFiles(in: folder)
        try #require(leftovers.count == 1)
        let leftover = try Data(contentsOf: folder.appendingPathComponent(leftovers[0]))
        #expect(leftover == (point == .halfWritten ? newBytes.prefix(newBytes.count / 2) : newBytes))
    }

    @Test func theNextWriteCleansUpAfterACrash() throws {
        let url = folder.appendingPathComponent("storage.json")
        try StorageFile(url: url).write(Data("v1"))
        #expect(throws: simulatedCrash) { try crashing(url, at: .halfWritten).write(Data("v2 lost")) }
        let first = temporaryFiles(in: folder)
        #expect(first.count == 1)
        // A write that crashes too still removed the earlier leftover before making its own.
        #expect(throws: simulatedCrash) { try crashing(url, at: .beforeRename).write(Data("v2 lost again")) }
        let second = temporaryFiles(in: folder)
        #expect(second.count == 1)
        #expect(second != first)

        try StorageFile(url: url).write(Data("v3"))

        #expect(temporaryFiles(in: folder).isEmpty)
        #expect(try StorageFile(url: url).read()?.text == "v3")
    }

    @Test func aCrashDuringTheFirstWriteLeavesNoDocument() throws {
        let device = DeviceFolder(root: folder)
        let url = device.deviceProfile.url
        #expect(throws: simulatedCrash) { try crashing(url, at: .beforeRename).write(Data("never")) }
        #expect(try StorageFile(url: url).read() == nil)
        #expect(try device.files().isEmpty)
    }

    @Test func aCrashDuringUpdateKeepsThePreviousBytesAndReleasesTheLock() throws {
        let url = folder.appendingPathComponent("storage.json")
        try StorageFile(url: url).write(Data("1"))
        #expect(throws: simulatedCrash) {
            try crashing(url, at: .halfWritten).update { _ in Data("2") }
        }
        #expect(try StorageFile(url: url).read()?.text == "1")
        // A dead process's flock is dropped by the kernel; here the hook's descriptor was closed the same way.
        try StorageFile(url: url).update { _ in Data("3") }
        #expect(try StorageFile(url: url).read()?.text == "3")
    }

    @Test func aTruncatedTempFileLeftOnDiskIsIgnoredAndCleanedUp() throws {
        // Given a good version and, next to it, the truncated temp file of a write killed mid-way
        let device = DeviceFolder(root: folder)
        let file = try device.teamShared(teamID: "TEAM123")
        try file.write(Data(#"{"tokens":["good"]}"#))
        let leftover = file.url.deletingLastPathComponent().appendingPathComponent(".storage.json.tmp-4242-beef")
        try Data(#"{"tokens":["ne"#).write(to: leftover)
        // Then reads and listings ignore it
        #expect(try file.read()?.text == #"{"tokens":["good"]}"#)
        #expect(try device.files().map(\.url) == [file.url])
        // When the next write happens, it removes the leftover
        try file.write(Data(#"{"tokens":["good","newer"]}"#))
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
        #expect(try file.read()?.text == #"{"tokens":["good","newer"]}"#)
    }

    @Test func leftoversOfOtherDocumentsAreNotTouched() throws {
        let other = folder.appendingPathComponent(".other.json.tmp-1-1")
        try Data("someone else's").write(to: other)
        try StorageFile(url: folder.appendingPathComponent("storage.json")).write(Data("x"))
        #expect(FileManager.default.fileExists(atPath: other.path))
    }
}
