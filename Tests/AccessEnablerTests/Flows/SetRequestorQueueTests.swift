import AccessEnabler
import Foundation
import PassProtocol
import Testing

/// Seed 002 "post-init workflow": calls made before setRequestorComplete wait and run in order after it (both
/// protocols: on REST API v2 the registration and the v2 configuration take the config call's place).
@Suite struct SetRequestorQueueTests {
    @Test(arguments: EntitlementProtocol.allCases) func callsMadeDuringSetRequestorRunAfterItInOrder(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            // Given an app that calls before the configuration arrived
            app.enabler.setRequestor("REF30", serviceProviders: [fixture.serviceProvider])
            app.enabler.checkAuthentication()
            app.enabler.checkAuthorization("news")
            app.enabler.checkPreauthorizedResources(["news"])
            await app.settle()
            // Then setRequestorComplete comes first and the queued calls follow in order
            #expect(app.delegate.main == [
                .setRequestorComplete(status: 1),
                .setAuthenticationStatus(status: 0, errorCode: ErrorCode.USER_NOT_AUTHENTICATED_ERROR),
                .tokenRequestFailed(resource: "news", errorCode: ErrorCode.USER_NOT_AUTHENTICATED_ERROR, errorDescription: ""),
                .preauthorizedResources(resources: []),
            ])
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func failedSetRequestorGivesEachQueuedCallItsErrorCallback(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            app.enabler.setRequestor("NO_SUCH_REQUESTOR", serviceProviders: [fixture.serviceProvider])
            app.enabler.getAuthentication()
            app.enabler.getAuthorization("news")
            await app.settle()
            #expect(app.delegate.main == [
                .setRequestorComplete(status: 0),
                .setAuthenticationStatus(status: 0, errorCode: ErrorCode.internalError.rawValue),
                .tokenRequestFailed(resource: "news", errorCode: ErrorCode.internalError.rawValue, errorDescription: "setRequestor did not complete."),
            ])
            #expect(app.delegate.statuses.first?["errorId"] == "CFG400")
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func unreachableBackendFailsSetRequestorWithCFG404(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            app.enabler.setRequestor("REF30", serviceProviders: [URL(string: "http://127.0.0.1:9/adobe-services")!])
            app.enabler.checkAuthentication()
            await app.settle()
            #expect(app.delegate.main.first == .setRequestorComplete(status: 0))
            #expect(app.delegate.statuses.first?["errorId"] == "CFG404")
            #expect(app.delegate.main.count == 2)
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func callsWithoutAnySetRequestorFail(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            app.enabler.checkAuthentication()
            await app.settle()
            #expect(app.delegate.main == [.setAuthenticationStatus(status: 0, errorCode: ErrorCode.internalError.rawValue)])
        }
    }
}
