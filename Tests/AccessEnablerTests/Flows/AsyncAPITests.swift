import AccessEnabler
import Foundation
import PassProtocol
import Testing

/// The async/await face runs the same engine: same callbacks to the delegate, results returned or thrown.
@Suite struct AsyncAPITests {
    @Test func asyncAuthorizationAfterLoginAndItsErrors() async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app()
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

    @Test func anAsyncCallRunsAfterTheCallsMadeBeforeIt() async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app()
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

    @Test func configureThrowsForAnUnknownRequestor() async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app()
            await #expect(throws: EntitlementError.self) {
                try await app.enabler.configure("NOPE", serviceProviders: [fixture.serviceProvider])
            }
        }
    }
}
