import Foundation
import PassTestSupport
import PassStorage
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `update(_:)` under concurrency: threads, tasks and other processes must never lose a change.
struct StorageFileLockTests {
    /// A fresh, empty folder for each test.
    private let folder: URL
    private let temporary: TemporaryFolder

    init() throws {
        temporary = try TemporaryFolder.inMemory()
        folder = temporary.url
    }

    /// Adds one to the decimal counter in `file`.
    private static func increment(_ file: StorageFile) throws {
        try file.update { current in
            let count = current.flatMap { Int($0.text) } ?? 0
            return Data(String(count + 1))
        }
    }

    @Test func concurrentThreadsNeverLoseAnIncrement() async throws {
        let url = folder.appendingPathComponent("counter")
        let workers = 8
        let incrementsEach = 50
        let errors = Locked<[any Error]>([])
        let group = DispatchGroup()
        for _ in 0..<workers {
            group.enter()
            // Its own StorageFile value, hence its own lock descriptor, as another process would have.
            let file = StorageFile(url: url)
            Thread.detachNewThread {
                defer { group.leave() }
                for _ in 0..<incrementsEach {
                    do { try Self.increment(file) } catch { errors.withValue { $0.append(error) } }
                }
            }
        }
        try #require(await finished(group, within: 120))
        #expect(errors.withValue { $0.isEmpty })
        #expect(try StorageFile(url: url).read()?.text == String(workers * incrementsEach))
    }

    @Test func concurrentTasksNeverLoseAnIncrement() async throws {
        let url = folder.appendingPathComponent("counter")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let file = StorageFile(url: url)
                    for _ in 0..<50 { try Self.increment(file) }
                }
            }
            try await group.waitForAll()
        }
        #expect(try StorageFile(url: url).read()?.text == "200")
    }

    @Test func writeWaitsForAnUpdateInProgress() async throws {
        let url = folder.appendingPathComponent("storage.json")
        let inTransform = DispatchSemaphore(value: 0)
        let mayFinish = DispatchSemaphore(value: 0)
        let writeDone = DispatchSemaphore(value: 0)
        // Given an update that is inside its transform
        Thread.detachNewThread {
            _ = try? StorageFile(url: url).update { _ in
                inTransform.signal()
                mayFinish.wait()
                return Data("from update")
            }
        }
        try #require(await offPool { inTransform.wait(timeout: .now() + 10) } == .success)
        // When another writer writes
        Thread.detachNewThread {
            try? StorageFile(url: url).write(Data("from write"))
            writeDone.signal()
        }
        // Then it waits until the update has finished, and its bytes win
        #expect(await offPool { writeDone.wait(timeout: .now() + 0.3) } == .timedOut)
        mayFinish.signal()
        try #require(await offPool { writeDone.wait(timeout: .now() + 10) } == .success)
        #expect(try StorageFile(url: url).read()?.text == "from write")
    }
}

/// Waits for `group` on a thread of its own and says whether it finished within `timeout`.
///
/// Not `group.wait` in the test itself: a synchronous test runs on one of the concurrency pool's few threads (two on
/// a 2-core machine), and the two counting tests, run in parallel, held both for as long as their hundreds of
/// locked updates took: no other test's task ran meanwhile, so servers left requests unanswered (BadInputTests'
/// raw requests timed out with no answer).
private func finished(_ group: DispatchGroup, within timeout: TimeInterval) async -> Bool {
    await offPool { group.wait(timeout: .now() + timeout) == .success }
}

/// Runs `work`, which blocks (a semaphore, a child process, a polling loop), on a thread of its own, for the reason
/// above: every blocking wait of these tests goes through it, so none holds a concurrency thread.
private func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: work()) }
    }
}

// MARK: - Against other processes, through flock(1)

/// flock(1) from util-linux, when installed.
private let flockTool = ["/usr/bin/flock", "/bin/flock", "/usr/local/bin/flock"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

@Suite(.enabled(if: flockTool != nil, "needs flock(1) from util-linux"))
struct StorageFileProcessLockTests {
    /// A fresh, empty folder for each test.
    private let folder: URL
    private let temporary: TemporaryFolder

    init() throws {
        temporary = try TemporaryFolder.inMemory()
        folder = temporary.url
    }

    /// Starts `script` under `/bin/sh` with `environment`.
    private static func shell(_ script: String, _ environment: [String: String]) throws -> ChildProcess {
        try ChildProcess(
            "/bin/sh", ["-c", script],
            environment: environment.merging(["PATH": "/usr/bin:/bin", "FLOCK": flockTool!]) { $1 })
    }

    private func waitUntilExists(_ url: URL, timeout: TimeInterval) async -> Bool {
        await offPool {
            let deadline = Date(timeIntervalSinceNow: timeout)
            while Date() < deadline {
                if FileManager.default.fileExists(atPath: url.path) { return true }
                usleep(10_000)
            }
            return false
        }
    }

    @Test func updateWaitsWhileAnotherProcessHoldsTheLock() async throws {
        let file = StorageFile(url: folder.appendingPathComponent("storage.json"))
        try file.write(Data("before"))
        let ready = folder.appendingPathComponent("ready")
        let release = folder.appendingPathComponent("release")
        // Given another process that holds the lock, changes the document, and waits to be told to let go
        let holder = try Self.shell(
            #"""
            exec "$FLOCK" "$LOCK" /bin/sh -c '
                printf "from the other process" > "$FILE"
                : > "$READY"
                while [ ! -e "$RELEASE" ]; do sleep 0.02; done'
            """#,
            ["LOCK": file.lockURL.path, "FILE": file.url.path, "READY": ready.path, "RELEASE": release.path]
        )
        defer { _ = FileManager.default.createFile(atPath: release.path, contents: nil) }
        try #require(await waitUntilExists(ready, timeout: 10))

        // When this process updates the document
        let finished = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<Data?, any Error>?>(nil)
        let url = file.url
        Thread.detachNewThread {
            let result = Result { try StorageFile(url: url).update { ($0 ?? Data()) + Data(" + this process") } }
            outcome.withValue { $0 = result }
            finished.signal()
        }

        // Then the update waits for the other process, and builds on its change
        #expect(await offPool { finished.wait(timeout: .now() + 0.5) } == .timedOut)
        _ = FileManager.default.createFile(atPath: release.path, contents: nil)
        try #require(await offPool { finished.wait(timeout: .now() + 10) } == .success)
        let written = try outcome.withValue { try $0?.get() }
        #expect(written?.text == "from the other process + this process")
        #expect(try file.read()?.text == "from the other process + this process")
        #expect(await holder.exited() == 0)
    }

    @Test func anotherProcessCannotTakeTheLockDuringUpdate() async throws {
        let file = StorageFile(url: folder.appendingPathComponent("storage.json"))
        let lock = ["LOCK": file.lockURL.path]
        let probeScript = #""$FLOCK" -n "$LOCK" true"#
        // the update holds the lock while a probe process tries it; the whole update waits on a thread of its own
        let statusInside = try await BlockingWork.run {
            var status: Int32 = -1
            try file.update { _ in
                status = try Self.shell(probeScript, lock).waitUntilExit()
                return Data("x")
            }
            return status
        }
        let statusAfter = await (try Self.shell(probeScript, lock)).exited()
        // flock -n exits 1 when the lock is taken.
        #expect(statusInside == 1)
        #expect(statusAfter == 0)
    }

    @Test func processesAndThreadsIncrementingTogetherNeverLoseAnIncrement() async throws {
        let url = folder.appendingPathComponent("counter")
        let file = StorageFile(url: url)
        try file.write(Data("0"))
        // Given two shell processes that increment the counter 50 times each under flock(1)…
        let script = #"""
            i=0
            while [ "$i" -lt 50 ]; do
                "$FLOCK" "$LOCK" /bin/sh -c '
                    n=$(cat "$FILE")
                    printf %s "$((n + 1))" > "$FILE.shell.$$" && mv "$FILE.shell.$$" "$FILE"' || exit 1
                i=$((i + 1))
            done
            """#
        let environment = ["LOCK": file.lockURL.path, "FILE": url.path]
        let processes = try (0..<2).map { _ in try Self.shell(script, environment) }
        // …and three threads of this process doing the same through update()
        let errors = Locked<[any Error]>([])
        let group = DispatchGroup()
        for _ in 0..<3 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                let file = StorageFile(url: url)
                for _ in 0..<50 {
                    do {
                        try file.update { Data(String((($0.flatMap { Int($0.text) }) ?? 0) + 1)) }
                    } catch {
                        errors.withValue { $0.append(error) }
                    }
                }
            }
        }
        try #require(await finished(group, within: 120))
        for process in processes { await process.exited() }
        // Then every increment counted
        #expect(processes.allSatisfy { $0.exitCode == 0 })
        #expect(errors.withValue { $0.isEmpty })
        #expect(try file.read()?.text == "250")
    }
}
