import Foundation
import Testing

@testable import PassProtocol

struct LegacyAuthorizationTests {
    static let secret = "gB8HYdEPyezeYbR1"
    static let nonce = "6f1c0e3a-58a4-4c2b-9d3f-0a1b2c3d4e5f"

    static func header(uri: String = "/regcode", secret: String = secret) -> String {
        LegacyAuthorization.make(
            method: "POST",
            requestorID: "REF30",
            requestURI: uri,
            publicKey: "yKpsHYd8TOITdTMJ",
            secret: secret,
            nonce: nonce,
            requestTime: 1_700_000_000_000
        )
    }

    @Test func makeProducesTheOneLineHeaderRealClientsSend() {
        // The signature was computed independently with Python's hmac/hashlib over the prefix.
        #expect(
            Self.header()
                == "POST requestor_id=REF30, nonce=\(Self.nonce), signature_method=HMAC-SHA1, "
                + "request_time=1700000000000, request_uri=/regcode, public_key=yKpsHYd8TOITdTMJ, "
                + "signature=odaVrWQiOdLusytyQszVYXTp6pE="
        )
    }

    @Test func parseReadsEveryFieldAndKeepsTheSignedPrefix() throws {
        let auth = try LegacyAuthorization.parse(Self.header())
        #expect(auth.method == "POST")
        #expect(auth.requestorID == "REF30")
        #expect(auth.nonce == Self.nonce)
        #expect(auth.signatureMethod == "HMAC-SHA1")
        #expect(auth.requestTime == 1_700_000_000_000)
        #expect(auth.requestURI == "/regcode")
        #expect(auth.publicKey == "yKpsHYd8TOITdTMJ")
        #expect(auth.signature == "odaVrWQiOdLusytyQszVYXTp6pE=")
        #expect(
            auth.signedPrefix
                == "POST requestor_id=REF30, nonce=\(Self.nonce), signature_method=HMAC-SHA1, "
                + "request_time=1700000000000, request_uri=/regcode"
        )
    }

    @Test func madeHeaderVerifiesWithTheSameSecret() throws {
        #expect(try LegacyAuthorization.parse(Self.header()).verifySignature(secret: Self.secret))
    }

    @Test func wrongSecretFails() throws {
        #expect(!(try LegacyAuthorization.parse(Self.header()).verifySignature(secret: "not-the-secret")))
    }

    @Test(arguments: [
        ("requestor_id=REF30", "requestor_id=EVIL"),
        ("request_time=1700000000000", "request_time=1700000000001"),
        ("request_uri=/regcode", "request_uri=/authorize"),
        ("POST ", "GET "),
    ])
    func tamperedSignedFieldFails(original: String, replacement: String) throws {
        let tampered = Self.header().replacingOccurrences(of: original, with: replacement)
        #expect(tampered != Self.header())
        #expect(!(try LegacyAuthorization.parse(tampered).verifySignature(secret: Self.secret)))
    }

    @Test func shortRequestURIMatchesTheFullPathsTrailingSegments() throws {
        let regcode = try LegacyAuthorization.parse(Self.header(uri: "/regcode"))
        #expect(regcode.matchesPath("/reggie/v1/REF30/regcode"))
        #expect(regcode.matchesPath("/reggie/v1/REF30/regcode?format=json"))
        #expect(!regcode.matchesPath("/api/v1/authorize"))
        let authenticate = try LegacyAuthorization.parse(Self.header(uri: "/authenticate/ABC123"))
        #expect(authenticate.matchesPath("/api/v1/authenticate/ABC123"))
        #expect(!authenticate.matchesPath("/api/v1/authenticate/XYZ999"))
    }

    @Test func fullRequestURIMatchesTheSamePath() throws {
        let auth = try LegacyAuthorization.parse(Self.header(uri: "/api/v1/authorize"))
        #expect(auth.matchesPath("/api/v1/authorize"))
        #expect(auth.matchesPath("/api/v1/authorize/"))
        #expect(!auth.matchesPath("/api/v1/tokens/authz"))
        #expect(!auth.matchesPath("/"))
    }

    @Test func freshnessIsJudgedAgainstTheGivenClock() throws {
        let auth = try LegacyAuthorization.parse(Self.header())
        let signedAt = EpochMilliseconds.date(1_700_000_000_000)
        #expect(auth.isFresh(at: signedAt.addingTimeInterval(299)))
        #expect(!auth.isFresh(at: signedAt.addingTimeInterval(301)))
    }

    @Test func malformedHeadersGiveAReadableReason() {
        let cases: [(String, LegacyAuthorizationError)] = [
            ("", .malformedHeader("the header is empty")),
            ("Bearer", .malformedHeader("expected \"<METHOD> requestor_id=…, …\"")),
            ("requestor_id=REF30, nonce=1", .malformedHeader("\"requestor_id=REF30,\" is not an HTTP method")),
            ("POST requestor_id=REF30, nonce=1", .missingField("public_key")),
            (Self.header().replacingOccurrences(of: "nonce=\(Self.nonce), ", with: ""), .missingField("nonce")),
            (
                Self.header().replacingOccurrences(of: "1700000000000", with: "soon"),
                .invalidField(name: "request_time", value: "soon")
            ),
            (
                Self.header().replacingOccurrences(of: ", signature_method=", with: ", signature_method"),
                .malformedHeader("\"signature_methodHMAC-SHA1\" is not a key=value field")
            ),
        ]
        for (header, expected) in cases {
            #expect(throws: expected) { try LegacyAuthorization.parse(header) }
        }
        #expect(
            LegacyAuthorizationError.missingField("nonce").reason == "Authorization header is missing the nonce field."
        )
    }
}
