import AccessEnabler
import Foundation
import PassBackend
import PassProtocol
import Testing

/// The async/await face runs the same engine: same callbacks to the delegate, results returned or thrown.
@Suite struct AsyncAPITests {
    @Test(arguments: EntitlementProtocol.allCases) func asyncAuthorizationAfterLoginAndItsErrors(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            try await app.enabler.configure("REF30", serviceProviders: [fixture.serviceProvider])
            #expect(await app.enabler.isAuthenticated() == false)
            try await app.login(mvpd: "Dish", username: "dave", password: "dave123")
            #expect(await app.enabler.isAuthenticated())
            let token = try await app.enabler.authorization(for: "kids")
            #expect(token.hasPrefix("<signatureInfo>"))
            await app.enabler.settle()  // the delegate queue may run just after the await returned
            #expect(app.delegate.lastToken == token, "the delegate saw the same setToken")
            do {
                _ = try await app.enabler.authorization(for: "sports")
                Issue.record("sports is not in dave's package")
            } catch let error as EntitlementError {
                #expect(error.code == .userNotAuthorized)
                #expect(error.code.category == .authorization)
            }
            #expect(await app.enabler.preauthorized(["kids", "sports"]) == ["kids"])
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func anAsyncCallRunsAfterTheCallsMadeBeforeIt(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            try await app.enabler.configure("REF30", serviceProviders: [fixture.serviceProvider])
            try await app.login(mvpd: "Dish", username: "dave", password: "dave123")
            for _ in 0..<20 {
                // A logout made just before must be run first: the async call may not overtake it.
                app.enabler.logout()
                #expect(await app.enabler.isAuthenticated() == false)
                try await app.login(mvpd: "Dish", username: "dave", password: "dave123")
                #expect(await app.enabler.isAuthenticated())
            }
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func anAsyncCallWaitsForTheOperationStillRunning(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            try await app.enabler.configure("REF30", serviceProviders: [fixture.serviceProvider])
            try await app.login(mvpd: "Dish", username: "dave", password: "dave123")
            app.delegate.clear()
            fixture.service.faults.rules = [FaultRule(path: SDKFixture.authorizePath(wire), latencyMs: 400, remaining: 1)]
            app.enabler.getAuthorization("kids")
            // The call has left the intake and its operation waits on the slow answer; an async call made now runs on
            // the caller's task, but only in its turn: after the authorization.
            try await Task.sleep(for: .milliseconds(100))
            let preauthorized = await app.enabler.preauthorized(["kids", "sports"])
            #expect(preauthorized == ["kids"])
            await app.enabler.settle()
            let names = app.delegate.main.map(\.name)
            let token = try #require(names.firstIndex(of: "setToken"), "getAuthorization ended with setToken")
            let answer = try #require(names.firstIndex(of: "preauthorizedResources"))
            #expect(token < answer, "the async call overtook the running authorization: \(names)")
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func cancellingTheWaitingTaskEndsTheCallWithAFailure(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            try await app.enabler.configure("REF30", serviceProviders: [fixture.serviceProvider])
            try await app.login(mvpd: "Dish", username: "dave", password: "dave123")
            fixture.service.faults.rules = [FaultRule(path: SDKFixture.authorizePath(wire), latencyMs: 5000, remaining: 1)]
            let started = ContinuousClock.now
            let call = Task { try await app.enabler.authorization(for: "kids") }
            try await Task.sleep(for: .milliseconds(200))
            call.cancel()
            await #expect(throws: EntitlementError.self) { try await call.value }
            #expect(ContinuousClock.now - started < .seconds(4), "the cancelled request was not waited out")
            await app.enabler.settle()
            #expect(app.delegate.main.contains { $0.name == "tokenRequestFailed" }, "the delegate hears how the call ended")
            // The SDK goes on working: the next call is answered.
            #expect(try await app.enabler.authorization(for: "kids").hasPrefix("<signatureInfo>"))
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func configureThrowsForAnUnknownRequestor(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            await #expect(throws: EntitlementError.self) {
                try await app.enabler.configure("NOPE", serviceProviders: [fixture.serviceProvider])
            }
        }
    }
}
