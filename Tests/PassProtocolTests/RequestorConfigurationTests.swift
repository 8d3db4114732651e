import Foundation
import Testing

@testable import PassProtocol

struct RequestorConfigurationTests {
    static let configuration = RequestorConfiguration(
        device: "mobile",
        clientType: "ios",
        os: "iOS",
        requestorID: "REF30",
        requestorName: "Reference & Co",
        mvpds: [
            MVPDInfo(id: "Cablevision", displayName: "Optimum", logoURL: "https://logos.test/optimum.png"),
            MVPDInfo(
                id: "Comcast_SSO",
                displayName: "Xfinity",
                logoURL: "https://logos.test/x.png",
                passiveAuthnEnabled: false,
                authPerAggregator: true,
                enablePlatformServices: true,
                requiresSVC: true,
                authenticationTTLSeconds: 86_400
            ),
        ]
    )

    @Test func xmlIsCompactWithConfigRoot() {
        let xml = Self.configuration.xml()
        #expect(xml.hasPrefix("<config><device>mobile</device><clientType>ios</clientType><os>iOS</os><requestor>"))
        #expect(!xml.contains("> "))
        #expect(!xml.contains(" <"))
        #expect(!xml.contains("\n"))
        #expect(xml.contains("<name>Reference &amp; Co</name>"))
        #expect(
            xml.contains(
                "<mvpd><id>Comcast_SSO</id><displayName>Xfinity</displayName>"
                    + "<logoUrl>https://logos.test/x.png</logoUrl>"
                    + "<passiveAuthnEnabled>false</passiveAuthnEnabled><authPerAggregator>true</authPerAggregator>"
                    + "<enablePlatformServices>true</enablePlatformServices><requiresSVC>true</requiresSVC>"
                    + "<authenticationTTLSeconds>86400</authenticationTTLSeconds></mvpd>"
            )
        )
    }

    @Test func xmlRoundTrips() throws {
        #expect(try RequestorConfiguration.parse(xml: Self.configuration.xml()) == Self.configuration)
    }

    @Test func parsesIndentedXMLWithDefaultsForAbsentFlags() throws {
        let xml = """
            <?xml version="1.0"?>
            <config>
              <device>tablet</device>
              <requestor>
                <id>REF30</id>
                <mvpds>
                  <mvpd>
                    <id>A</id><displayName>Alpha</displayName><logoUrl>u</logoUrl><iFrameRequired>x</iFrameRequired>
                  </mvpd>
                </mvpds>
              </requestor>
            </config>
            """
        let parsed = try RequestorConfiguration.parse(xml: xml)
        #expect(parsed.device == "tablet")
        #expect(parsed.clientType == "")
        #expect(parsed.mvpds == [MVPDInfo(id: "A", displayName: "Alpha", logoURL: "u")])
        #expect(parsed.mvpds[0].passiveAuthnEnabled)
        #expect(!parsed.mvpds[0].authPerAggregator)
    }

    @Test func mvpdWithoutLogoIsRejected() {
        let xml =
            "<config><requestor><id>R</id><mvpds><mvpd><id>A</id><displayName>A</displayName></mvpd>"
            + "</mvpds></requestor></config>"
        #expect(throws: PayloadFormatError("missing element logoUrl in an <mvpd> of requestor/mvpds")) {
            try RequestorConfiguration.parse(xml: xml)
        }
    }

    @Test func otherRootsAndBrokenXMLAreRejected() {
        #expect(throws: PayloadFormatError("expected a <config> document, found <error>")) {
            try RequestorConfiguration.parse(xml: "<error><details>x</details></error>")
        }
        #expect(throws: PayloadFormatError.self) { try RequestorConfiguration.parse(xml: "<config><requestor>") }
    }

    @Test func jsonTwinIsNestedLikeRESTv2AndRoundTrips() throws {
        let json = Self.configuration.json()
        let object = try #require(JSONSerialization.jsonObject(with: json) as? [String: Any])
        let requestor = try #require(object["requestor"] as? [String: Any])
        #expect(requestor["id"] as? String == "REF30")
        let mvpds = try #require(requestor["mvpds"] as? [[String: Any]])
        #expect(mvpds[0]["logoUrl"] as? String == "https://logos.test/optimum.png")
        #expect(mvpds[0]["authenticationTTLSeconds"] == nil)
        #expect(mvpds[1]["requiresSVC"] as? Bool == true)
        #expect(try RequestorConfiguration.decode(json: json) == Self.configuration)
    }
}
