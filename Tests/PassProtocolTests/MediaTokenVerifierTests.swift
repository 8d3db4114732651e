import Foundation
import Testing

@testable import PassProtocol

struct MediaTokenVerifierTests {
    let verifier = MediaTokenVerifier(key: TestKeys.signing.publicKey)
    let signed = SignedToken.sign(MediaToken.fixture(resourceID: "bravo"), with: TestKeys.signing)
    let duringTTL = MediaToken.issueTime.addingTimeInterval(60)

    @Test func validRawTokenForTheRightResource() {
        let (verdict, token) = verifier.verify(signed.serialized, resourceID: "bravo", now: duringTTL)
        #expect(verdict == .validToken)
        #expect(token?.body == MediaToken.fixture(resourceID: "bravo"))
    }

    @Test func validBase64TokenAsRESTSendsIt() {
        let (verdict, token) = verifier.verify(signed.base64Serialized, resourceID: "bravo", now: duringTTL)
        #expect(verdict == .validToken)
        #expect(token == signed)
    }

    @Test func urlEncodedBase64WithoutPaddingIsAccepted() {
        let encoded = signed.base64Serialized
            .replacingOccurrences(of: "=", with: "")
            .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        #expect(verifier.verify(encoded, resourceID: nil, now: duringTTL).0 == .validToken)
    }

    @Test func nilResourceAcceptsAnyResource() {
        #expect(verifier.verify(signed.serialized, resourceID: nil, now: duringTTL).0 == .validToken)
    }

    @Test(arguments: ["", "hello", "PHNpZ25hdHVyZUluZm8+", "<signatureInfo>x<signatureInfo><nope/>"])
    func garbageIsInvalidTokenFormat(_ text: String) {
        let (verdict, token) = verifier.verify(text, resourceID: "bravo", now: duringTTL)
        #expect(verdict == .invalidTokenFormat)
        #expect(token == nil)
    }

    @Test func authNTokenIsNotAMediaToken() {
        let authN = SignedToken.sign(AuthNToken.fixture(), with: TestKeys.signing)
        #expect(verifier.verify(authN.serialized, resourceID: nil, now: duringTTL).0 == .invalidTokenFormat)
    }

    @Test func tamperedBodyIsInvalidSignatureButStillDecoded() {
        let tampered = signed.serialized.replacingOccurrences(of: "<ttl>420000</ttl>", with: "<ttl>999999999</ttl>")
        let (verdict, token) = verifier.verify(tampered, resourceID: "bravo", now: duringTTL)
        #expect(verdict == .invalidSignature)
        #expect(token?.body.ttlMilliseconds == 999_999_999)
    }

    @Test func tokenFromAnotherKeyIsInvalidSignature() {
        let foreign = SignedToken.sign(MediaToken.fixture(), with: TestKeys.other)
        #expect(verifier.verify(foreign.serialized, resourceID: "bravo", now: duringTTL).0 == .invalidSignature)
    }

    @Test func afterTheTTLTheTokenIsExpired() {
        let late = MediaToken.issueTime.addingTimeInterval(420)
        #expect(verifier.verify(signed.serialized, resourceID: "bravo", now: late).0 == .tokenExpired)
    }

    @Test func anotherResourceIsInvalidResourceID() {
        #expect(verifier.verify(signed.serialized, resourceID: "charlie", now: duringTTL).0 == .invalidResourceID)
    }

    @Test func verdictsUseTheVerifierLibrarysNamesAndExplainThemselves() throws {
        #expect(
            MediaTokenVerdict.allCases.map(\.rawValue) == [
                "VALID_TOKEN", "INVALID_TOKEN_FORMAT", "INVALID_SIGNATURE", "TOKEN_EXPIRED", "INVALID_RESOURCE_ID",
                "TOKEN_ALREADY_USED", "ERROR_UNKNOWN",
            ]
        )
        #expect(MediaTokenVerdict.allCases.allSatisfy { !$0.explanation.isEmpty })
        #expect(
            String(decoding: try JSONEncoder().encode(MediaTokenVerdict.tokenExpired), as: UTF8.self)
                == "\"TOKEN_EXPIRED\""
        )
    }
}
