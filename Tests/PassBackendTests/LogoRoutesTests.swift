import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// `GET /logos/{id}.svg`: the logos the configuration's `logoURL`s point at, for the provider picker.
struct LogoRoutesTests {
    @Test func everyLogoURLInTheConfigurationServesAnSVGWithTheDisplayName() async throws {
        try await BackendFixture.with { _, client async throws in
            let config = try RequestorConfiguration.parse(xml: try await client.get("/adobe-services/1.0/config/REF30").text)
            try #require(config.mvpds.count == 3)
            for mvpd in config.mvpds {
                let answer = try await client.get(mvpd.logoURL)
                #expect(answer.status == 200, "\(mvpd.logoURL)")
                #expect(answer.header("Content-Type")?.hasPrefix("image/svg+xml") == true)
                #expect(answer.header("Cache-Control")?.contains("max-age") == true)
                #expect(answer.text.hasPrefix("<svg"))
                #expect(answer.text.contains(">\(mvpd.displayName)</text>"))
                #expect(Self.isWellFormed(answer.text))
            }
        }
    }

    @Test(arguments: ["/logos/Nope.svg", "/logos/Cablevision.png", "/logos/Cablevision", "/logos/.svg"])
    func unknownLogoIs404JSON(path: String) async throws {
        try await BackendFixture.with { _, client async throws in
            let answer = try await client.get(path)
            #expect(answer.status == 404)
            #expect(answer.header("Content-Type")?.contains("json") == true)
            #expect(answer.json["error"] as? String == "unknown_logo")
        }
    }

    @Test func displayNameIsEscapedInTheSVG() async throws {
        try await BackendFixture.with(configure: { configuration in
            configuration.mvpds.append(MVPD(id: "ATT", displayName: "AT&T <U-verse>", logoURL: "/logos/ATT.svg"))
        }) { _, client async throws in
            let answer = try await client.get("/logos/ATT.svg")
            #expect(answer.status == 200)
            #expect(answer.text.contains("AT&amp;T &lt;U-verse&gt;"))
            #expect(!answer.text.contains("<U-verse>"))
            #expect(Self.isWellFormed(answer.text))
        }
    }

    @Test func logosOfDifferentMVPDsDiffer() async throws {
        try await BackendFixture.with { _, client async throws in
            let optimum = try await client.get("/logos/Cablevision.svg").text
            let dish = try await client.get("/logos/Dish.svg").text
            #expect(optimum != dish)
            #expect(try await client.get("/logos/Dish.svg").text == dish, "stable across requests (cacheable)")
        }
    }

    static func isWellFormed(_ text: String) -> Bool {
        final class Delegate: NSObject, XMLParserDelegate {}
        let parser = XMLParser(data: Data(text.utf8))
        let delegate = Delegate()
        parser.delegate = delegate
        return parser.parse()
    }
}
