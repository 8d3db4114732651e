import AccessEnabler
import Foundation
import PassBackend
import PassProtocol
import Locking
import struct Synchronization.Atomic
import Testing

@testable import PassStorage

/// The flows write storage behind them, as the platform's stores do: a change is seen at once by this process's
/// AccessEnablers and lands on disk, in one write, when the call that made it is done; callbacks do not wait for it.
@Suite struct StorageWriteBehindTests {
    /// Counts the storage writes that reach their rename and holds the first one there until ``letGo()``, as a slow
    /// disk would. Once let go (also before any write came), nothing is held: a test that fails early does not leave
    /// a write stuck for the rest of the run.
    final class SlowDisk: Sendable {
        private let state = Mutex((writes: 0, held: false, released: false))
        private let release = DispatchSemaphore(value: 0)

        func reached(_ point: StorageFile.Hooks.Point) {
            guard point == .beforeRename else { return }
            let hold = state.withLock { state in
                state.writes += 1
                state.held = state.writes == 1 && !state.released
                return state.held
            }
            if hold { release.wait() }
        }

        var writes: Int { state.withLock { $0.writes } }
        var holding: Bool { state.withLock { $0.held } }
        func letGo() {
            let held = state.withLock { state in
                defer { (state.held, state.released) = (false, true) }
                return state.held
            }
            if held { release.signal() }
        }
    }

    final class Flag: Sendable {
        private let value = Atomic(false)
        func set() { value.store(true, ordering: .sequentiallyConsistent) }
        var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
    }

    /// An app whose storage is on `disk`, signed in as carol: the write of its authN token is held on the disk.
    static func appSignedInOnSlowDisk(_ fixture: SDKFixture, _ disk: SlowDisk) async throws -> TestApp {
        let app = try fixture.app { $0.storage.hooks.interrupt = { point, _ in disk.reached(point) } }
        await app.start(base: fixture.serviceProvider)
        try await app.signInAsCarol()
        #expect(await eventually { disk.holding })
        return app
    }

    static func stored(_ app: TestApp) throws -> TokenStorage? {
        guard let data = try app.configuration.storage.read() else { return nil }
        return try JSONDecoder().decode(TokenStorage.self, from: data)
    }

    /// Polls `condition` for up to `seconds`.
    static func eventually(seconds: Double = 5, _ condition: () throws -> Bool) async rethrows -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if try condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return try condition()
    }

    @Test func theAppHearsOfItsTokensWithoutWaitingForTheDiskAndTheyLandTogetherWhenTheCallIsDone() async throws {
        try await SDKFixture.with { fixture in
            let disk = SlowDisk()
            defer { disk.letGo() }
            let app = try fixture.app {
                $0.storage.hooks.interrupt = { point, _ in disk.reached(point) }
                $0.storageWriteDeadline = .seconds(30)  // only the end of the call lands the tokens
            }
            await app.start(base: fixture.serviceProvider)
            try await app.signInAsCarol(authorizing: "news")

            // setAuthenticationStatus(1) and setToken arrive while the write holding both tokens is stuck on the disk
            let told = await Self.eventually { app.delegate.main.map(\.name).suffix(2) == ["setAuthenticationStatus", "setToken"] }
            #expect(told, "the callbacks waited for the disk: \(app.delegate.main.map(\.name))")
            #expect(await Self.eventually { disk.holding })
            #expect(try Self.stored(app)?.bucket(requestor: "REF30", mvpd: "Dish")?.authnToken == nil)

            disk.letGo()
            await app.settle()
            let storage = try #require(try Self.stored(app))
            #expect(storage.bucket(requestor: "REF30", mvpd: "Dish")?.authnToken != nil)
            #expect(storage.bucket(requestor: "REF30", mvpd: "Dish")?.authzTokens["news"] != nil)
            #expect(disk.writes == 1, "the authN and authZ tokens of one call land in one write, not \(disk.writes)")
        }
    }

    @Test func anotherAppOfThisProcessSeesAChangeBeforeItIsOnDisk() async throws {
        try await SDKFixture.with { fixture in
            let disk = SlowDisk()
            defer { disk.letGo() }
            let first = try await Self.appSignedInOnSlowDisk(fixture, disk)
            #expect(try Self.stored(first)?.bucket(requestor: "REF30", mvpd: "Dish")?.authnToken == nil)

            // The same team's other app, started meanwhile: it reads the first app's pending token
            let second = try fixture.app(bundleID: "com.example.other.ios")
            second.enabler.setRequestor("REF30", serviceProviders: [fixture.serviceProvider])
            second.enabler.checkAuthentication()
            let answered = await Self.eventually { !second.delegate.main.filter { $0.name == "setAuthenticationStatus" }.isEmpty }
            #expect(answered)
            #expect(second.delegate.main.last { $0.name == "setAuthenticationStatus" } == .setAuthenticationStatus(status: 1, errorCode: ""))
        }
    }

    @Test func anotherProcessFindsTheSessionOnDiskAMomentAfterTheCallback() async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app()
            await app.start(base: fixture.serviceProvider)
            try await app.signInAsCarol()
            // No settle, no flush: the write lands by itself once handleExternalURL's work is done
            #expect(await Self.eventually { app.delegate.main.last == .setAuthenticationStatus(status: 1, errorCode: "") })
            let landed = try await Self.eventually(seconds: 1) { try Self.stored(app)?.bucket(requestor: "REF30", mvpd: "Dish")?.authnToken != nil }
            #expect(landed, "the token was not on disk 1 s after the callback")
        }
    }

    @Test func aChangeLandsWithinTheDeadlineWhileItsCallIsStillRunning() async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app()
            await app.start(base: fixture.serviceProvider)
            // authorizeDevice answers after 1.5 s: the authN token stored before it must not wait for the whole call
            fixture.service.faults.rules = [FaultRule(path: "/adobe-services/1.0/authorizeDevice", latencyMs: 1500, remaining: 1)]
            try await app.signInAsCarol(authorizing: "news")
            #expect(await Self.eventually { app.delegate.main.last == .setAuthenticationStatus(status: 1, errorCode: "") })
            let landed = try await Self.eventually(seconds: 1) { try Self.stored(app)?.bucket(requestor: "REF30", mvpd: "Dish")?.authnToken != nil }
            #expect(landed, "the authN token waited for the end of getAuthorization")
            #expect(!app.delegate.main.contains { $0.name == "setToken" }, "authorizeDevice answered before the check: the test proves nothing")
            await app.settle()
            #expect(app.delegate.main.last?.name == "setToken")
        }
    }

    @Test func waitForStorageWritesReturnsOnceTheChangesAreOnDisk() async throws {
        try await SDKFixture.with { fixture in
            let disk = SlowDisk()
            defer { disk.letGo() }
            let app = try await Self.appSignedInOnSlowDisk(fixture, disk)
            let returned = Flag()
            let waiting = Thread {
                app.enabler.waitForStorageWrites()
                returned.set()
            }
            waiting.start()
            try await Task.sleep(for: .milliseconds(100))
            #expect(!returned.isSet, "returned while the write was still on its way")
            disk.letGo()
            #expect(await Self.eventually { returned.isSet })
            #expect(try Self.stored(app)?.bucket(requestor: "REF30", mvpd: "Dish")?.authnToken != nil)
        }
    }
}

extension TestApp {
    /// getAuthentication (or getAuthorization of `resource`), Dish at the picker, carol on its login page, then
    /// handleExternalURL — without waiting for what that call does (its callbacks, its storage write).
    fileprivate func signInAsCarol(authorizing resource: String? = nil) async throws {
        if let resource { enabler.getAuthorization(resource) } else { enabler.getAuthentication() }
        await settle()
        enabler.setSelectedProvider("Dish")
        await settle()
        let end = try await webView.signIn(at: try #require(delegate.lastURL), username: "carol", password: "carol123")
        enabler.handleExternalURL(end)
    }
}
