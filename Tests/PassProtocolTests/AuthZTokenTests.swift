import Foundation
import Testing

@testable import PassProtocol

struct AuthZTokenTests {
    @Test func bodyUsesSimpleTokenTTLForTheExpiry() {
        let body = AuthZToken.fixture().xmlBody
        #expect(body.hasPrefix("<simpleAuthorizationToken><simpleTokenRequestorID>REF30</simpleTokenRequestorID>"))
        #expect(body.contains("<simpleTokenTTL>2030/03/17 17:46:40 GMT +0000</simpleTokenTTL>"))
    }

    @Test func roundTripsThroughItsBody() throws {
        let token = AuthZToken.fixture()
        #expect(try AuthZToken.parse(body: token.xmlBody) == token)
    }

    @Test func keepsAnMRSSResourceIDIntactThroughEscaping() throws {
        let mrss = #"<rss version="2.0"><channel><title>REF30</title></channel></rss>"#
        let token = AuthZToken.fixture(resourceID: mrss)
        #expect(token.xmlBody.contains("&lt;rss version=&quot;2.0&quot;&gt;"))
        #expect(try AuthZToken.parse(body: token.xmlBody).resourceID == mrss)
    }

    @Test func toleratesABareAmpersandInAResourceID() throws {
        let body = AuthZToken.fixture().xmlBody.replacingOccurrences(of: ">bravo<", with: ">Tom & Jerry<")
        #expect(try AuthZToken.parse(body: body).resourceID == "Tom & Jerry")
    }

    @Test func unparsableExpiryIsAFormatError() {
        let body = AuthZToken.fixture().xmlBody.replacingOccurrences(
            of: "2030/03/17 17:46:40 GMT +0000",
            with: "tomorrow"
        )
        #expect(throws: TokenFormatError("simpleTokenTTL is not a token date: \"tomorrow\"")) {
            try AuthZToken.parse(body: body)
        }
    }
}
