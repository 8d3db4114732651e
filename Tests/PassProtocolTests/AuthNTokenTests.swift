import Foundation
import Testing

@testable import PassProtocol

struct AuthNTokenTests {
    @Test func bodyIsCompactXMLInSeedOrderWithEscapedValues() {
        let token = AuthNToken.fixture(authorizedResources: ["bravo", "a&b"])
        let fingerprint = DeviceFingerprint.make(deviceID: "device-A")
        #expect(
            token.xmlBody
                == "<simpleAuthenticationToken>"
                + "<simpleTokenAuthenticationGuid>71C69B91-F327-F185-F29E-2CE20DC560F5</simpleTokenAuthenticationGuid>"
                + "<simpleTokenRequestorID>REF30</simpleTokenRequestorID>"
                + "<simpleTokenDomainName>adobe.com</simpleTokenDomainName>"
                + "<simpleTokenExpires>2030/03/17 17:46:40 GMT +0000</simpleTokenExpires>"
                + "<simpleTokenMsoID>Cablevision</simpleTokenMsoID>"
                + "<simpleTokenDeviceID><simpleTokenFingerprint>\(fingerprint)</simpleTokenFingerprint>"
                + "</simpleTokenDeviceID>"
                + "<simpleSamlNameID>name&lt;id&gt;&amp;1</simpleSamlNameID>"
                + "<simpleSamlSessionIndex>s-42</simpleSamlSessionIndex>"
                + "<simpleAuthorizedResources><simpleAuthorizedResource simpleResourceID=\"bravo\"/>"
                + "<simpleAuthorizedResource simpleResourceID=\"a&amp;b\"/></simpleAuthorizedResources>"
                + "</simpleAuthenticationToken>"
        )
    }

    @Test func deviceFingerprintIsTheSaltedSHA256InLowerCaseHex() {
        // Stored tokens carry this value: it must not change between versions (or every stored token would read as
        // another device's).
        #expect(DeviceFingerprint.make(deviceID: "device-A") == "a8ab03beb08c8084d36249cb6186e323b6e042fd1f5dc949ed8b9e8f7a5e0e08")
        #expect(DeviceFingerprint.make(deviceID: "device-B") != DeviceFingerprint.make(deviceID: "device-A"))
        #expect(DeviceFingerprint.make(deviceID: "device-A") == "a8ab03beb08c8084d36249cb6186e323b6e042fd1f5dc949ed8b9e8f7a5e0e08")
    }

    @Test func roundTripsThroughItsBody() throws {
        let token = AuthNToken.fixture(authorizedResources: ["bravo", "a&b"])
        #expect(try AuthNToken.parse(body: token.xmlBody) == token)
    }

    @Test func omitsAbsentOptionalElementsAndReadsThemBackAsAbsent() throws {
        var token = AuthNToken.fixture()
        token.samlNameID = nil
        token.samlSessionIndex = nil
        #expect(!token.xmlBody.contains("simpleSaml"))
        #expect(!token.xmlBody.contains("simpleAuthorizedResources"))
        #expect(try AuthNToken.parse(body: token.xmlBody) == token)
    }

    @Test func readsTheSeedsIndentedBody() throws {
        let body = """
            <simpleAuthenticationToken>
                <simpleTokenAuthenticationGuid>71C69B91-F327-F185-F29E-2CE20DC560F5</simpleTokenAuthenticationGuid>
                <simpleTokenRequestorID>TEST_REQUESTOR</simpleTokenRequestorID>
                <simpleTokenDomainName>adobe.com</simpleTokenDomainName>
                <simpleTokenExpires>2011/03/19 02:29:34 GMT +0200</simpleTokenExpires>
                <simpleTokenMsoID>Adobe</simpleTokenMsoID>
                <simpleTokenDeviceID>
                    <simpleTokenFingerprint>
                        HASH(true device identification info)
                    </simpleTokenFingerprint>
                </simpleTokenDeviceID>
            </simpleAuthenticationToken>
            """
        let token = try AuthNToken.parse(body: body)
        #expect(token.requestorID == "TEST_REQUESTOR")
        #expect(token.mvpdID == "Adobe")
        #expect(token.expires == TokenDateTests.seedInstant)
        #expect(token.deviceFingerprint == "HASH(true device identification info)")
        #expect(token.samlNameID == nil)
    }

    @Test func missingElementIsAFormatErrorNamingIt() {
        let body = AuthNToken.fixture().xmlBody.replacingOccurrences(
            of: "<simpleTokenMsoID>Cablevision</simpleTokenMsoID>",
            with: ""
        )
        #expect(throws: TokenFormatError("missing element simpleTokenMsoID in <simpleAuthenticationToken>")) {
            try AuthNToken.parse(body: body)
        }
    }

    @Test func wrongRootIsAFormatError() {
        #expect(throws: TokenFormatError.self) { try AuthNToken.parse(body: AuthZToken.fixture().xmlBody) }
        #expect(throws: TokenFormatError.self) { try AuthNToken.parse(body: "<simpleAuthenticationToken>") }
    }

    @Test func expiryIsExclusive() {
        let token = AuthNToken.fixture()
        #expect(!token.isExpired(at: token.expires.addingTimeInterval(-1)))
        #expect(token.isExpired(at: token.expires))
    }
}
