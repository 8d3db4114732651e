import Foundation
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// `GET {sp}/config/{requestor}` (spec §5.2.1): what `setRequestor` reads to build the provider picker.
struct SDKConfigTests {
    @Test(arguments: ["/adobe-services", "/adobe-services/1.0"])
    func configListsTheProgrammersMVPDsWithTheirFlags(prefix: String) async throws {
        try await BackendFixture.with { _, client async throws in
            let answer = try await client.get("\(prefix)/config/REF30")
            #expect(answer.status == 200)
            #expect(answer.header("Content-Type")?.hasPrefix("application/xml") == true)
            let config = try RequestorConfiguration.parse(xml: answer.text)
            #expect(config.requestorID == "REF30")
            #expect(config.requestorName == "Reference Network")
            #expect(config.clientType == "ios")
            #expect(config.mvpds.map(\.id) == ["Cablevision", "Spectrum", "Dish"])

            let optimum = try #require(config.mvpd("Cablevision"))
            #expect(optimum.displayName == "Optimum")
            #expect(optimum.logoURL == "/logos/Cablevision.svg")
            #expect(optimum.authPerAggregator)
            #expect(optimum.passiveAuthnEnabled)
            #expect(!optimum.enablePlatformServices)
            #expect(optimum.authenticationTTLSeconds == 86400)

            let spectrum = try #require(config.mvpd("Spectrum"))
            #expect(spectrum.enablePlatformServices)
            #expect(!spectrum.authPerAggregator)
            #expect(spectrum.authenticationTTLSeconds == 2_592_000)

            let dish = try #require(config.mvpd("Dish"))
            #expect(dish.displayName == "DISH")
            #expect(!dish.enablePlatformServices && !dish.authPerAggregator && !dish.requiresSVC)
        }
    }

    @Test func configIsCompactSoTheAndroidParserAcceptsIt() async throws {
        try await BackendFixture.with { _, client async throws in
            let text = try await client.get("/adobe-services/1.0/config/REF30").text
            #expect(text.range(of: #">\s+<"#, options: .regularExpression) == nil, "whitespace between elements")
            #expect(text.contains("<mvpds><mvpd><id>Cablevision</id>"))
        }
    }

    @Test func configOnlyListsMVPDsThatProgrammerIntegrates() async throws {
        try await BackendFixture.with { _, client async throws in
            let sports = try RequestorConfiguration.parse(xml: try await client.get("/adobe-services/config/SPORTS1").text)
            #expect(sports.mvpds.map(\.id) == ["Cablevision", "Dish"])
            let kids = try RequestorConfiguration.parse(xml: try await client.get("/adobe-services/config/KIDSNET").text)
            #expect(kids.mvpds.map(\.id) == ["Spectrum", "Dish", "Rogers"])
        }
    }

    @Test func tvOSClientsAreToldTheirDeviceType() async throws {
        try await BackendFixture.with { _, client async throws in
            let answer = try await client.get("/adobe-services/1.0/config/REF30?client_type=tvOS")
            let config = try RequestorConfiguration.parse(xml: answer.text)
            // A device type of the tracking list (spec §4): an Apple TV is none of computer, tablet, mobile, gameconsole
            #expect(config.device == "unknown")
            #expect(TrackingDeviceType(rawValue: config.device) != nil)
            #expect(config.os == "tvOS")
            #expect(config.clientType == "tvos")
        }
    }

    @Test(arguments: ["/adobe-services/1.0/config/REF30?format=json", "/adobe-services/1.0/config/REF30.json"])
    func configIsAvailableAsJSON(path: String) async throws {
        try await BackendFixture.with { _, client async throws in
            let answer = try await client.get(path)
            #expect(answer.status == 200)
            #expect(answer.header("Content-Type")?.contains("json") == true)
            let config = try RequestorConfiguration.decode(json: answer.body)
            #expect(config.requestorID == "REF30")
            #expect(config.mvpds.count == 3)
        }
    }

    @Test(arguments: ["/adobe-services", "/adobe-services/1.0"])
    func unknownRequestorIs400WithTheMessageTheSDKMatches(prefix: String) async throws {
        try await BackendFixture.with { _, client async throws in
            let answer = try await client.get("\(prefix)/config/NOPE")
            #expect(answer.status == 400)
            #expect(SDKResponses.parseError(answer.text) == "Requestor not found for given ID: NOPE")
            #expect(throws: (any Error).self) { try RequestorConfiguration.parse(xml: answer.text) }
        }
    }

    @Test func mvpdOverrideShowsInTheConfiguration() async throws {
        try await BackendFixture.with { _, client async throws in
            try await AdminClient(client: client).setFaults(
                FaultSettings(mvpdOverrides: ["Dish": MVPDOverride(authnTTL: 60, requiresSVC: true)]))
            let config = try RequestorConfiguration.parse(xml: try await client.get("/adobe-services/1.0/config/REF30").text)
            let dish = try #require(config.mvpd("Dish"))
            #expect(dish.authenticationTTLSeconds == 60)
            #expect(dish.requiresSVC)
            #expect(config.mvpd("Spectrum")?.requiresSVC == false)
        }
    }
}
