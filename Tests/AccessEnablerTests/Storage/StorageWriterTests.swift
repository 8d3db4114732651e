import Foundation
import Locking
import PassTestSupport
import Testing

@testable import AccessEnabler
@testable import PassStorage

/// The shared writer of one storage file when two AccessEnablers of a process write at once: what they read never
/// loses a change that is on its way to the disk or already there.
@Suite struct StorageWriterTests {
    /// A store on a fresh file; with `holdFirstWrite`, the first write stops before its rename until `release`.
    static func store(holdFirstWrite: (reached: DispatchSemaphore, release: DispatchSemaphore)? = nil) -> TokenStore {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("writer-\(UUID().uuidString)")
        var file = StorageFile(url: folder.appendingPathComponent("storage.json"))
        if let holdFirstWrite {
            let first = Mutex(true)
            file.hooks.interrupt = { point, _ in
                guard point == .beforeRename else { return }
                let isFirst = first.withLock { value in
                    defer { value = false }
                    return value
                }
                guard isFirst else { return }
                holdFirstWrite.reached.signal()
                holdFirstWrite.release.wait()
            }
        }
        return TokenStore(file: file, domain: "test")
    }

    static func token(_ requestor: String, _ value: String) -> @Sendable (inout TokenStorage) -> Void {
        { $0.storeAuthentication(requestor: requestor, mvpd: "Dish", authnToken: value, userMeta: nil) }
    }

    /// What an engine reads: the writer's expected storage, else the file.
    static func seen(_ writer: StorageWriter, _ store: TokenStore) throws -> TokenStorage { try writer.expected ?? store.load() }

    @Test func aRuleWrittenNowStaysVisibleWhenAnotherAppQueuedAChangeWhileItWasOnItsWay() async throws {
        let (reached, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let store = Self.store(holdFirstWrite: (reached, release))
        defer { try? FileManager.default.removeItem(at: store.file.url.deletingLastPathComponent()) }
        let writer = StorageWriter.shared(for: store, deadline: .seconds(30))
        // App 1's rule (an SSO copy, the sanitizer) writes now; its write is on its way to the disk…
        let ruleDone = DispatchSemaphore(value: 0)
        Thread {
            _ = try? writer.writeNow(Self.token("A", "rule"))
            ruleDone.signal()
        }.start()
        try await BlockingWork.run { reached.wait() }  // (waits off the concurrency pool, as every wait here)
        // …when app 2 stores a token, from the file as it was before the rule's write landed
        #expect(writer.write(Self.token("B", "login"), load: { (try? store.load()) ?? TokenStorage() }, failed: { _ in }) != nil)
        release.signal()
        try await BlockingWork.run { ruleDone.wait() }
        // Both apps read the rule's change and app 2's pending token
        let seen = try Self.seen(writer, store)
        #expect(seen.bucket(requestor: "A", mvpd: "Dish")?.authnToken == "rule", "the rule's change vanished from what the apps read")
        #expect(seen.bucket(requestor: "B", mvpd: "Dish")?.authnToken == "login")
        writer.flushNow()
        let onDisk = try store.load()
        #expect(onDisk.bucket(requestor: "A", mvpd: "Dish")?.authnToken == "rule")
        #expect(onDisk.bucket(requestor: "B", mvpd: "Dish")?.authnToken == "login")
    }

    @Test func aChangeQueuedJustAfterAnotherLandedKeepsIt() throws {
        let store = Self.store()
        defer { try? FileManager.default.removeItem(at: store.file.url.deletingLastPathComponent()) }
        let writer = StorageWriter.shared(for: store, deadline: .seconds(30))
        _ = writer.write(Self.token("A", "first"), load: { TokenStorage() }, failed: { _ in })
        writer.flushNow()
        #expect(writer.expected == nil, "nothing pending: the file is the truth again")
        _ = writer.write(Self.token("B", "second"), load: { (try? store.load()) ?? TokenStorage() }, failed: { _ in })
        let seen = try Self.seen(writer, store)
        #expect(seen.bucket(requestor: "A", mvpd: "Dish")?.authnToken == "first")
        #expect(seen.bucket(requestor: "B", mvpd: "Dish")?.authnToken == "second")
        writer.flushNow()
    }

    @Test func twoAppsOnOneFileShareOneWriterAndOneWriteLandsBothChanges() throws {
        let store = Self.store()
        defer { try? FileManager.default.removeItem(at: store.file.url.deletingLastPathComponent()) }
        let first = StorageWriter.shared(for: store, deadline: .seconds(30))
        let second = StorageWriter.shared(for: TokenStore(file: StorageFile(url: store.file.url), domain: "other"))
        #expect(first === second)
        _ = first.write(Self.token("A", "one"), load: { TokenStorage() }, failed: { _ in })
        _ = second.write(Self.token("B", "two"), load: { TokenStorage() }, failed: { _ in })
        #expect(try store.file.read() == nil, "nothing lands before the call ends or the deadline")
        second.flushNow()
        let onDisk = try store.load()
        #expect(onDisk.bucket(requestor: "A", mvpd: "Dish")?.authnToken == "one")
        #expect(onDisk.bucket(requestor: "B", mvpd: "Dish")?.authnToken == "two")
    }

    @Test func aWriteThatCannotLandTellsEveryChangeInItAndTheFileKeepsItsLastGoodState() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("writer-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var file = StorageFile(url: folder.appendingPathComponent("storage.json"))
        let failing = Mutex(false)
        file.hooks.interrupt = { point, _ throws(StorageError) in
            if point == .beforeRename, failing.withLock({ $0 }) { throw StorageError(code: .ioFailure, message: "disk full", path: "") }
        }
        let store = TokenStore(file: file, domain: "test")
        let writer = StorageWriter.shared(for: store, deadline: .seconds(30))
        _ = writer.write(Self.token("A", "good"), load: { TokenStorage() }, failed: { _ in })
        writer.flushNow()
        failing.withLock { $0 = true }
        let failures = Mutex<[String]>([])
        _ = writer.write(Self.token("A", "lost"), load: { (try? store.load()) ?? TokenStorage() }, failed: { error in
            failures.withLock { $0.append("A: \(error)") }
        })
        _ = writer.write(Self.token("B", "lost"), load: { TokenStorage() }, failed: { error in failures.withLock { $0.append("B: \(error)") } })
        writer.flushNow()
        #expect(failures.withLock { $0.count } == 2, "\(failures.withLock { $0 })")
        #expect(failures.withLock { $0.allSatisfy { $0.contains("disk full") } })
        #expect(try store.load().bucket(requestor: "A", mvpd: "Dish")?.authnToken == "good")
        #expect(writer.expected == nil, "what failed to land is not shown as stored")
    }

    @Test func flushingTheFilesOfSomeFoldersDoesNotWaitForAWriteStuckElsewhere() async throws {
        let (reached, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let stuck = Self.store(holdFirstWrite: (reached, release))
        let other = Self.store()
        defer {
            release.signal()
            for store in [stuck, other] { try? FileManager.default.removeItem(at: store.file.url.deletingLastPathComponent()) }
        }
        let stuckWriter = StorageWriter.shared(for: stuck, deadline: .seconds(30))
        _ = stuckWriter.write(Self.token("A", "slow"), load: { TokenStorage() }, failed: { _ in })
        stuckWriter.flushSoon()
        try await BlockingWork.run { reached.wait() }  // its write is stuck on a slow disk
        let otherWriter = StorageWriter.shared(for: other, deadline: .seconds(30))
        _ = otherWriter.write(Self.token("B", "quick"), load: { TokenStorage() }, failed: { _ in })
        let done = DispatchSemaphore(value: 0)
        Thread {
            AccessEnabler.waitForAllStorageWrites(in: [other.file.url.deletingLastPathComponent()])
            done.signal()
        }.start()
        let finished = try await BlockingWork.run { done.wait(timeout: .now() + 5) == .success }
        #expect(finished, "waited for a file outside the folders asked for")
        #expect(try other.load().bucket(requestor: "B", mvpd: "Dish")?.authnToken == "quick")
    }
}
