import Foundation
import Testing

@testable import PassProtocol

struct MediaTokenTests {
    @Test func bodyWritesTTLAndIssueTimeInMilliseconds() {
        #expect(
            MediaToken.fixture(proxyMvpdID: "").xmlBody
                == "<shortAuthorizationToken><sessionGUID>71C69B91-F327-F185-F29E-2CE20DC560F5</sessionGUID>"
                + "<requestorID>REF30</requestorID><resourceID>bravo</resourceID><ttl>420000</ttl>"
                + "<issueTime>1893456000123</issueTime><mvpdId>Cablevision</mvpdId><proxyMvpdId></proxyMvpdId>"
                + "</shortAuthorizationToken>"
        )
    }

    @Test(arguments: ["", "Proxy1"])
    func roundTripsThroughItsBody(proxyMvpdID: String) throws {
        let token = MediaToken.fixture(proxyMvpdID: proxyMvpdID)
        #expect(try MediaToken.parse(body: token.xmlBody) == token)
    }

    @Test func missingProxyElementReadsAsEmpty() throws {
        let body = MediaToken.fixture().xmlBody.replacingOccurrences(of: "<proxyMvpdId></proxyMvpdId>", with: "")
        #expect(try MediaToken.parse(body: body).proxyMvpdID == "")
    }

    @Test func expiresAfterIssueTimePlusTTL() {
        let token = MediaToken.fixture()
        #expect(token.expires == MediaToken.issueTime.addingTimeInterval(420))
        #expect(!token.isExpired(at: MediaToken.issueTime.addingTimeInterval(419.999)))
        #expect(token.isExpired(at: MediaToken.issueTime.addingTimeInterval(420)))
    }

    @Test func nonNumericTTLIsAFormatError() {
        let body = MediaToken.fixture().xmlBody.replacingOccurrences(of: "420000", with: "7min")
        #expect(throws: TokenFormatError("ttl is not an integer: \"7min\"")) { try MediaToken.parse(body: body) }
    }
}
