import Foundation
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// The web routes answer a Programmer's page on another origin (spec §5.1): the preflight allows the `ap_*` and
/// `pass_sfp` headers, every answer (refusals too) names the page's origin with credentials and exposes `pass_sfp` and
/// the `Authzf-*` headers — for a Programmer's registered domains and loopback only; other routes stay same-origin.
struct WebVariantCORSTests {
    static let origin = "https://www.reference.example"

    @Test(arguments: [
        "/indiv/devices", "/adobe-services/session", "/adobe-services/1.0/authorize", "/adobe-services/shortAuthorize",
    ])
    func preflightAllowsTheWebHeadersForThePagesOrigin(path: String) async throws {
        try await BackendFixture.with { _, client async throws in
            let answer = try await client.send(
                "OPTIONS", path,
                headers: [
                    "Origin": Self.origin, "Access-Control-Request-Method": "POST",
                    "Access-Control-Request-Headers": "ap_21,pass_sfp,content-type",
                ])
            #expect(answer.status == 204)
            #expect(answer.header("Access-Control-Allow-Origin") == Self.origin)
            #expect(answer.header("Access-Control-Allow-Credentials") == "true")
            let allowed = (answer.header("Access-Control-Allow-Headers") ?? "").lowercased()
            for header in [
                "ap_42", "ap_11", "ap_z", "ap_19", "ap_21", "ap_23", "pass_sfp", "content-type", "authorization",
            ] {
                #expect(allowed.contains(header), "\(header) not in \(allowed)")
            }
            #expect(answer.header("Access-Control-Allow-Methods")?.contains("POST") == true)
        }
    }

    /// Every path PassProtocol names for the web variant is served (POST and its preflight), with and without `/1.0`.
    @Test func everyWebEndpointIsServedWithItsPreflight() throws {
        let routes = Set(
            PassBackend(service: BackendService(configuration: try BackendFixture.configuration())).registeredRoutes
                .map { "\($0.method) \($0.pattern)" })
        let paths =
            [WebEndpoint.deviceRegistration]
            + ["/adobe-services", "/adobe-services/1.0"].flatMap { sp in WebEndpoint.allCases.map { sp + $0.rawValue } }
        for path in paths {
            #expect(routes.contains("POST \(path)"), "\(path)")
            #expect(routes.contains("OPTIONS \(path)"), "\(path)")
        }
    }

    @Test func answersAndRefusalsNameTheOriginAndExposePassSFP() async throws {
        try await BackendFixture.with { _, client async throws in
            let registered = try await client.post(
                "/indiv/devices", json: Data(#"{"fingerprint":"page"}"#.utf8),
                headers: ["Origin": Self.origin])
            #expect(registered.status == 200)
            #expect(registered.header("Access-Control-Allow-Origin") == Self.origin)
            #expect(registered.header("Access-Control-Expose-Headers")?.contains("pass_sfp") == true)
            #expect(registered.header("Access-Control-Expose-Headers")?.contains("Authzf-Error-Code") == true)

            let refused = try await client.post(
                "/adobe-services/session", form: [("requestor_id", "REF30")],
                headers: ["Origin": Self.origin])
            #expect(refused.status == 400)
            #expect(refused.json["error"] as? String == "missing_parameter")
            #expect(refused.header("Access-Control-Allow-Origin") == Self.origin)
        }
    }

    @Test func withoutAnOriginOrOnOtherRoutesThereAreNoCrossOriginHeaders() async throws {
        try await BackendFixture.with { _, client async throws in
            let sameOrigin = try await client.post("/indiv/devices", json: Data(#"{"fingerprint":"page"}"#.utf8))
            #expect(sameOrigin.header("Access-Control-Allow-Origin") == nil)
            // Only a Programmer's domains (and loopback) get an answer a page may read.
            let other = try await client.send(
                "OPTIONS", "/adobe-services/session", headers: ["Origin": "https://evil.example"])
            #expect(other.header("Access-Control-Allow-Origin") == nil)
            let lookalike = try await client.post(
                "/indiv/devices", json: Data(#"{"fingerprint":"page"}"#.utf8),
                headers: ["Origin": "https://notreference.example"])
            #expect(lookalike.status == 200)
            #expect(lookalike.header("Access-Control-Allow-Origin") == nil)
            for allowed in [
                "https://reference.example", "https://tv.adobe.com", "http://127.0.0.1:9999", "http://localhost:3000",
            ] {
                let answer = try await client.send("OPTIONS", "/adobe-services/session", headers: ["Origin": allowed])
                #expect(answer.header("Access-Control-Allow-Origin") == allowed, "\(allowed)")
            }
            for origin in [
                "null", "javascript:alert(1)", "https://a.example, https://b.example", "https://reference.example/path",
            ] {
                let odd = try await client.send("OPTIONS", "/adobe-services/session", headers: ["Origin": origin])
                #expect(odd.header("Access-Control-Allow-Origin") == nil, "\(origin)")
            }
            let native = try await client.post(
                "/adobe-services/1.0/sessionDevice",
                form: [("requestor_id", "REF30"), ("device_id", "d")], headers: ["Origin": Self.origin])
            #expect(native.header("Access-Control-Allow-Origin") == nil)
            let admin = try await client.get("/admin/sessions", headers: ["Origin": Self.origin])
            #expect(admin.header("Access-Control-Allow-Origin") == nil)
        }
    }
}
