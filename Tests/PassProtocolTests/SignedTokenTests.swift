import Foundation
import Testing

@testable import PassProtocol

struct SignedTokenTests {
    /// The authN token exactly as seed 002 §Format prints it.
    static let seedSample = """
          <signatureInfo>base64(...)<signatureInfo>
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

    @Test func serializedFormUsesTheOpeningDelimiterTwice() {
        let signed = SignedToken.sign(AuthNToken.fixture(), with: TestKeys.signing)
        let text = signed.serialized
        #expect(text.hasPrefix("<signatureInfo>"))
        #expect(text.components(separatedBy: "<signatureInfo>").count == 3)
        #expect(!text.contains("</signatureInfo>"))
        #expect(text == "<signatureInfo>\(signed.signature)<signatureInfo>\(AuthNToken.fixture().xmlBody)")
        #expect(Data(base64Encoded: signed.signature) != nil)
    }

    @Test func readsTheSeedSample() throws {
        let token = try SignedToken<AuthNToken>.parse(Self.seedSample)
        #expect(token.signature == "base64(...)")
        #expect(token.body.requestorID == "TEST_REQUESTOR")
        #expect(token.body.expires == TokenDateTests.seedInstant)
        #expect(!token.verify(with: TestKeys.signing.publicKey))
    }

    @Test func signatureVerifiesAfterARoundTrip() throws {
        let signed = SignedToken.sign(AuthNToken.fixture(), with: TestKeys.signing)
        let parsed = try SignedToken<AuthNToken>.parse(signed.serialized)
        #expect(parsed == signed)
        #expect(parsed.verify(with: TestKeys.signing.publicKey))
    }

    @Test func tamperingWithOneBodyCharacterBreaksTheSignature() throws {
        let signed = SignedToken.sign(AuthZToken.fixture(), with: TestKeys.signing)
        let tampered = signed.serialized.replacingOccurrences(of: ">bravo<", with: ">bravp<")
        let parsed = try SignedToken<AuthZToken>.parse(tampered)
        #expect(parsed.body.resourceID == "bravp")
        #expect(!parsed.verify(with: TestKeys.signing.publicKey))
    }

    @Test func anotherKeysSignatureDoesNotVerify() {
        let signed = SignedToken.sign(MediaToken.fixture(), with: TestKeys.other)
        #expect(signed.verify(with: TestKeys.other.publicKey))
        #expect(!signed.verify(with: TestKeys.signing.publicKey))
    }

    @Test func base64FormRoundTripsAndStartsLikeAdobesSamples() throws {
        let signed = SignedToken.sign(MediaToken.fixture(), with: TestKeys.signing)
        #expect(signed.base64Serialized.hasPrefix("PHNpZ25hdHVyZUluZm8+"))
        #expect(try SignedToken<MediaToken>.parse(base64: signed.base64Serialized) == signed)
    }

    @Test func toleratesAClosingSecondDelimiterAndSurroundingWhitespace() throws {
        let signed = SignedToken.sign(AuthZToken.fixture(), with: TestKeys.signing)
        let variant = "\n <signatureInfo>\(signed.signature)</signatureInfo>\n\(signed.rawBody)\n"
        let parsed = try SignedToken<AuthZToken>.parse(variant)
        #expect(parsed.verify(with: TestKeys.signing.publicKey))
    }

    @Test func malformedStringsGiveAReason() {
        let body = AuthNToken.fixture().xmlBody
        #expect(throws: TokenFormatError("token does not start with <signatureInfo>")) {
            try SignedToken<AuthNToken>.parse(body)
        }
        #expect(throws: TokenFormatError("token has only one <signatureInfo> delimiter; expected two")) {
            try SignedToken<AuthNToken>.parse("<signatureInfo>abc" + body)
        }
        #expect(throws: TokenFormatError("token signature is empty")) {
            try SignedToken<AuthNToken>.parse("<signatureInfo><signatureInfo>" + body)
        }
        #expect(throws: TokenFormatError.self) {
            try SignedToken<MediaToken>.parse("<signatureInfo>abc<signatureInfo>" + body)
        }
    }

    @Test func keysSurvivePEMAndRawRoundTrips() throws {
        let key = TokenSigningKey()
        let restored = try TokenSigningKey(pemRepresentation: key.pemRepresentation)
        #expect(restored.rawRepresentation == key.rawRepresentation)
        let publicKey = try TokenVerificationKey(pemRepresentation: key.publicKey.pemRepresentation)
        #expect(publicKey == key.publicKey)
        let signed = SignedToken.sign(AuthNToken.fixture(), with: restored)
        #expect(signed.verify(with: publicKey))
    }

    @Test func parsesAndVerifiesFromManyTasksAtOnce() async throws {
        // XMLParser and swift-crypto are used from concurrent tasks by the backend; nothing may be shared.
        let text = SignedToken.sign(AuthNToken.fixture(), with: TestKeys.signing).serialized
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<64 {
                group.addTask { try SignedToken<AuthNToken>.parse(text).verify(with: TestKeys.signing.publicKey) }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 64))
    }
}
