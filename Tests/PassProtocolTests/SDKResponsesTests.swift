import Foundation
import Testing

@testable import PassProtocol

struct SDKResponsesTests {
    let authN = SignedToken.sign(AuthNToken.fixture(), with: TestKeys.signing)

    @Test func authnAnswerWrapsTheTokenHTMLEscapedUnderResult() {
        let answer = SDKResponses.authnToken(authN.serialized, userMeta: nil)
        #expect(answer.hasPrefix("<result><authnToken>&lt;signatureInfo&gt;"))
        #expect(answer.hasSuffix("&lt;/simpleAuthenticationToken&gt;</authnToken></result>"))
        #expect(!answer.contains("userMeta"))
    }

    @Test func authnAnswerRoundTripsToAVerifiableToken() throws {
        let meta = UserMetadata(updated: 1, data: ["zip": ["10001"]]).jsonText
        let answer = SDKResponses.authnToken(authN.serialized, userMeta: meta)
        let text = try SDKResponses.parseAuthnToken(answer)
        #expect(text == authN.serialized)
        #expect(try SignedToken<AuthNToken>.parse(text).verify(with: TestKeys.signing.publicKey))
        #expect(SDKResponses.parseUserMeta(answer) == meta)
        // One parse gives both, as the SDK reads a sessionDevice answer
        let both = try SDKResponses.parseAuthnAnswer(answer)
        #expect(both.token == authN.serialized)
        #expect(both.userMeta == meta)
        #expect(try SDKResponses.parseAuthnAnswer(SDKResponses.authnToken(authN.serialized, userMeta: nil)).userMeta == nil)
        #expect(throws: SDKResponseError.self) { try SDKResponses.parseAuthnAnswer(SDKResponses.error(details: "no")) }
    }

    @Test func authzAnswerRoundTrips() throws {
        let authZ = SignedToken.sign(AuthZToken.fixture(), with: TestKeys.signing)
        let answer = SDKResponses.authzToken(authZ.serialized, userMeta: nil)
        #expect(answer.hasPrefix("<result><authzToken>&lt;signatureInfo&gt;"))
        #expect(try SDKResponses.parseAuthzToken(answer) == authZ.serialized)
        #expect(SDKResponses.parseUserMeta(answer) == nil)
    }

    @Test func tokenIsFoundUnderAnyRoot() throws {
        let answer = "<sessionDevice><authnToken>\(XMLEscaping.escape(authN.serialized))</authnToken></sessionDevice>"
        #expect(try SDKResponses.parseAuthnToken(answer) == authN.serialized)
    }

    @Test func errorAnswerIsADenialWithItsDetails() {
        let answer = SDKResponses.error(details: "Your package does not include <Bravo>")
        #expect(answer == "<error><details>Your package does not include &lt;Bravo&gt;</details></error>")
        #expect(SDKResponses.parseError(answer) == "Your package does not include <Bravo>")
        #expect(throws: SDKResponseError.denied(details: "Your package does not include <Bravo>")) {
            try SDKResponses.parseAuthzToken(answer)
        }
        #expect(SDKResponses.parseError(SDKResponses.authnToken("x", userMeta: nil)) == nil)
    }

    @Test func pendingLogoutAndMissingTokenAreReported() {
        #expect(throws: SDKResponseError.pendingLogout) {
            try SDKResponses.parseAuthnToken("<result><pendingLogout/></result>")
        }
        #expect(throws: SDKResponseError.malformed("no <authnToken> element in <result>")) {
            try SDKResponses.parseAuthnToken(SDKResponses.authzToken("x", userMeta: nil))
        }
        #expect(throws: SDKResponseError.self) { try SDKResponses.parseAuthnToken("not xml") }
    }

    @Test func preauthorizeAnswerRoundTrips() throws {
        let answer = PreauthorizationResponse(resources: [
            .init(id: "a", authorized: true), .init(id: "b", authorized: false),
        ])
        let xml = SDKResponses.preauthorize(answer)
        #expect(xml.hasPrefix("<resources><resource><id>a</id><authorized>true</authorized></resource>"))
        #expect(try SDKResponses.parsePreauthorize(xml) == answer)
        #expect(throws: SDKResponseError.denied(details: "too many")) {
            try SDKResponses.parsePreauthorize(SDKResponses.error(details: "too many"))
        }
    }
}
