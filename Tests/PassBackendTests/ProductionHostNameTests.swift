import Foundation
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// Spec §9 item 1: clients built for Adobe's hosts send `Host: sp.auth.adobe.com` (the SDK protocol) or
/// `Host: api.auth.adobe.com` (REST) — a hosts-file entry or a proxy points them at the stand-in — and the one loopback
/// backend serves both protocols under either name (and the staging names).
struct ProductionHostNameTests {
    static let hosts = [
        "sp.auth.adobe.com", "api.auth.adobe.com", "sp.auth-staging.adobe.com", "api.auth-staging.adobe.com",
    ]

    static func get(_ client: TestHTTPClient, _ path: String, host: String) async throws -> String {
        let port = UInt16(try #require(URL(string: client.baseURL)?.port))
        let connection = try RawConnection(port: port)
        connection.send("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
        _ = await connection.waitForClose(timeout: .seconds(30))
        return connection.text
    }

    @Test(arguments: hosts)
    func theSDKProtocolAndRegistrationCodesAreServedUnderEitherHostName(host: String) async throws {
        try await BackendFixture.with { _, client async throws in
            let config = try await Self.get(client, "/adobe-services/1.0/config/REF30", host: host)
            #expect(BadInputTests.status(config) == 200, "\(config.prefix(300))")
            let body = String(config[(config.range(of: "\r\n\r\n")?.upperBound ?? config.endIndex)...])
            #expect((try? RequestorConfiguration.parse(xml: body))?.requestorID == "REF30")

            // The REST side under the same name: an unsigned call is refused by the REST layer itself (401 with
            // its reason), not by a host check — the route was found.
            let regcode = try await Self.get(client, "/reggie/v1/REF30/regcode/NOCODE?format=json", host: host)
            #expect(BadInputTests.status(regcode) == 401, "\(regcode.prefix(300))")
        }
    }
}
