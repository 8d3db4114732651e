import Foundation
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// `POST {sp}/preauthorize` (spec §5.2.7): which of a list of resources the user may watch, for the UI.
struct PreauthorizeTests {
    @Test func decidesEachResourceInTheOrderAsked() async throws {
        try await BackendFixture.with { _, client async throws in
            let sdk = SDKClient(client: client)
            let authn = try await sdk.signIn(Demo.alice)
            let answer = try await sdk.preauthorize(
                device: Demo.device, resources: ["movies", "news", "premium-drama", "sports"], authn: authn)
            #expect(answer.status == 200)
            let decisions = try SDKResponses.parsePreauthorize(answer.text)
            #expect(decisions.resources.map(\.id) == ["movies", "news", "premium-drama", "sports"])
            #expect(decisions.authorizedIDs == ["news", "sports"])
            let movies = try #require(decisions.resources.first)
            #expect(movies.error?.status == 403)
            #expect(movies.error?.details?.contains("not authorized") == true)
            #expect(decisions.resources[1].error == nil)
        }
    }

    @Test func commaSeparatedResourcesAreSplit() async throws {
        try await BackendFixture.with { _, client async throws in
            let sdk = SDKClient(client: client)
            let authn = try await sdk.signIn(Demo.bob)
            let answer = try await sdk.preauthorize(device: Demo.device, resources: ["news,sports", "movies"], authn: authn)
            let decisions = try SDKResponses.parsePreauthorize(answer.text)
            #expect(decisions.resources.map(\.id) == ["news", "sports", "movies"])
            #expect(decisions.authorizedIDs == ["news", "movies"])
        }
    }

    /// The Android SDK sends no device_id here (spec §5.2.7); the backend must still answer.
    @Test func worksWithoutADeviceID() async throws {
        try await BackendFixture.with { _, client async throws in
            let sdk = SDKClient(client: client)
            let authn = try await sdk.signIn(Demo.alice)
            let answer = try await sdk.preauthorize(device: nil, resources: ["news", "movies"], authn: authn)
            #expect(answer.status == 200, "\(answer.text)")
            #expect(try SDKResponses.parsePreauthorize(answer.text).authorizedIDs == ["news"])
        }
    }

    @Test func withoutADeviceIDTheOtherTokenChecksStillApply() async throws {
        try await BackendFixture.with { service, client async throws in
            let sdk = SDKClient(client: client)
            let authn = try await sdk.signIn(Demo.alice)
            let tampered = SDKClient.rebound(authn, from: Demo.device, to: Demo.otherDevice)
            let forged = try await sdk.preauthorize(device: nil, resources: ["news"], authn: tampered)
            #expect(forged.status == 401)
            #expect(forged.header("Authzf-Error-Code") == "token_signature_invalid")

            // alice's Optimum token is bound to REF30 (authentication per requestor)
            let wrongRequestor = try await sdk.preauthorize(requestor: "SPORTS1", device: nil, resources: ["news"], authn: authn)
            #expect(wrongRequestor.header("Authzf-Error-Code") == "token_requestor_mismatch")

            service.clock.advance(by: 86400 + 60)
            let expired = try await sdk.preauthorize(device: nil, resources: ["news"], authn: authn)
            #expect(expired.status == 401)
            #expect(expired.header("Authzf-Error-Code") == "token_expired")
        }
    }

    @Test func aDeviceIDThatDoesNotMatchIsStillRefused() async throws {
        try await BackendFixture.with { _, client async throws in
            let sdk = SDKClient(client: client)
            let authn = try await sdk.signIn(Demo.alice)
            let answer = try await sdk.preauthorize(device: Demo.otherDevice, resources: ["news"], authn: authn)
            #expect(answer.status == 401)
            #expect(answer.header("Authzf-Error-Code") == "device_mismatch")
            #expect(throws: SDKResponseError.self) { try SDKResponses.parsePreauthorize(answer.text) }
        }
    }

    @Test func withoutResourcesIs400() async throws {
        try await BackendFixture.with { _, client async throws in
            let sdk = SDKClient(client: client)
            let authn = try await sdk.signIn(Demo.alice)
            let answer = try await sdk.preauthorize(device: Demo.device, resources: [], authn: authn)
            #expect(answer.status == 400)
            #expect(answer.json["error"] as? String == "missing_parameter")
        }
    }

    @Test func mvpdDenialShowsAsNotAuthorizedWithTheMVPDsMessage() async throws {
        try await BackendFixture.with { _, client async throws in
            try await AdminClient(client: client).setFaults(FaultSettings(denials: [
                Denial(mvpd: "Dish", resource: "sports", message: "Blacked out in your area."),
            ]))
            let sdk = SDKClient(client: client)
            let authn = try await sdk.signIn(Demo.carol)
            let decisions = try SDKResponses.parsePreauthorize(
                try await sdk.preauthorize(device: Demo.device, resources: ["news", "sports"], authn: authn).text)
            #expect(decisions.authorizedIDs == ["news"])
            #expect(decisions.resources[1].error?.details == "Blacked out in your area.")
        }
    }
}
