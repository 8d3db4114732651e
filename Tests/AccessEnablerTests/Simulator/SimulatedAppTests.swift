import AccessEnabler
import Foundation
import Locking
import PassSimulator
import PassTestSupport
import Testing

/// `SimulatedApp`, the one driver of the console's apps, `passconsole flow` and the benchmarks, against a real backend:
/// a script plays the whole login, a person answers later, a refused login ends instead of hanging, logout follows
/// the chain alone.
struct SimulatedAppTests {
    static let carol = SimulatedApp.Credentials(username: "carol", password: "carol123")

    static func app(
        _ fixture: SDKFixture, _ wire: EntitlementProtocol, player: SimulatedApp.Player, failures: Failures = Failures(),
        callbacks: Callbacks = Callbacks()
    ) throws -> SimulatedApp {
        try SimulatedApp(
            app: AppIdentity(bundleID: "com.example.news.ios", teamID: "TEAM1234", platform: .iOS), device: fixture.folder,
            serviceProvider: fixture.serviceProvider, player: player,
            configure: { configuration in
                configuration.protocol = wire
                if wire == .restV2 { configuration.softwareStatement = SDKFixture.softwareStatements["REF30"] }
            },
            logger: TestServer.logger,
            onCallback: { callbacks.add($0.name) }, onFailure: { failures.add($0) })
    }

    final class Failures: Sendable {
        private let list = Mutex<[SimulatedApp.Failure]>([])
        func add(_ failure: SimulatedApp.Failure) { list.withLock { $0.append(failure) } }
        var all: [SimulatedApp.Failure] { list.withLock { $0 } }
    }

    final class Callbacks: Sendable {
        private let list = Mutex<[String]>([])
        func add(_ name: String) { list.withLock { $0.append(name) } }
        var names: [String] { list.withLock { $0 } }
    }

    /// Polls `condition` for up to 5 s.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<250 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    @Test(arguments: EntitlementProtocol.allCases) func aScriptPlaysThePickerAndTheLoginPage(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let callbacks = Callbacks()
            let app = try Self.app(fixture, wire, player: .script(mvpd: "Dish", credentials: Self.carol), callbacks: callbacks)
            try await app.enabler.configure("REF30")
            let token = try await app.enabler.authorization(for: "news")
            #expect(!token.isEmpty)
            await app.enabler.settle()
            #expect(callbacks.names.contains("displayProviderDialog"))
            #expect(callbacks.names.contains("navigateToUrl"))
            #expect(app.authenticated == true)
            #expect(app.webView.requestCount >= 2)  // the login page and the form's submission
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func aRefusedScriptedLoginEndsTheWaitingCallInsteadOfHanging(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let failures = Failures()
            let wrong = SimulatedApp.Credentials(username: "carol", password: "wrong")
            let app = try Self.app(
                fixture, wire, player: .script(mvpd: "Dish", credentials: wrong, endsLoginOnFailure: true), failures: failures)
            try await app.enabler.configure("REF30")
            await #expect(throws: EntitlementError.self) { try await app.enabler.authorization(for: "news") }
            guard case .signInFailed(let message)? = failures.all.first else {
                Issue.record("expected signInFailed, got \(failures.all)")
                return
            }
            #expect(!message.isEmpty)
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func aScriptWithoutAnMVPDFailsAtThePickerNamingTheOffer(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let failures = Failures()
            let app = try Self.app(fixture, wire, player: .script(mvpd: nil, credentials: Self.carol), failures: failures)
            try await app.enabler.configure("REF30")
            app.enabler.getAuthentication()
            #expect(await Self.eventually { !failures.all.isEmpty })
            guard case .noProviderChosen(let offered)? = failures.all.first else {
                Issue.record("expected noProviderChosen, got \(failures.all)")
                return
            }
            #expect(offered.contains("Dish"))
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func aPersonAnswersThePickerAndTheLoginPageLaterThenLogoutFollowsTheChainAlone(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try Self.app(fixture, wire, player: .person)
            await #expect(throws: SimulatedApp.Failure.noLoginPending) {
                try await app.signIn(username: "carol", password: "carol123")
            }
            try await app.enabler.configure("REF30")
            app.enabler.getAuthentication()
            #expect(await Self.eventually { app.pendingProviders?.contains { $0.ID == "Dish" } == true })
            app.providerAnswered()
            app.enabler.setSelectedProvider("Dish")
            #expect(await Self.eventually { app.pendingLoginURL != nil })

            await #expect {
                try await app.signIn(username: "carol", password: "wrong")
            } throws: { error in
                guard case .signInFailed = error as? SimulatedApp.Failure else { return false }
                return true
            }
            #expect(app.pendingLoginURL != nil)  // the page still shows after a refusal
            try await app.signIn(username: "carol", password: "carol123")
            #expect(await Self.eventually { app.authenticated == true })
            #expect(app.pendingLoginURL == nil)

            app.expect(.logout)
            app.enabler.logout()
            #expect(await Self.eventually { app.authenticated == false && !app.isFollowingLogout })
            #expect(await app.enabler.isAuthenticated() == false)
        }
    }
}
