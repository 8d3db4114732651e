import AccessEnabler
import Foundation
import PassProtocol
import Testing

/// Seed 002: a token is valid when its TTL has not expired and its issuer is among the allowed MVPDs.
struct TokenValidityTests {
    private let allowed: Set = ["MVPD1", "MVPD2"]
    private let now = TokenFixtures.now

    @Test func anUnexpiredTokenOfAnAllowedIssuerIsValid() {
        let (validity, token) = TokenValidity.authN(AuthNToken.fixture().signedString, allowedMvpds: allowed, now: now)
        #expect(validity == .valid)
        #expect(token?.mvpdID == "MVPD1")
    }

    @Test func anExpiredTokenIsNotValid() {
        let expired = AuthNToken.fixture(expires: TokenFixtures.yesterday).signedString
        #expect(TokenValidity.authN(expired, allowedMvpds: allowed, now: now).0 == .expired(TokenFixtures.yesterday))
        // Expiry is exclusive: a token expiring right now is expired
        let expiringNow = AuthNToken.fixture(expires: now).signedString
        #expect(!TokenValidity.authN(expiringNow, allowedMvpds: allowed, now: now).0.isValid)
    }

    @Test func aTokenOfAnIssuerNotAllowedIsNotValid() {
        let foreign = AuthNToken.fixture(mvpd: "MVPD9").signedString
        #expect(TokenValidity.authN(foreign, allowedMvpds: allowed, now: now).0 == .issuerNotAllowed("MVPD9"))
        // Without a list of MVPDs the issuer is not judged
        #expect(TokenValidity.authN(foreign, allowedMvpds: nil, now: now).0 == .valid)
    }

    @Test func aTokenOfAnotherDeviceIsNotValidWhenTheDeviceIsGiven() {
        let token = AuthNToken.fixture(deviceID: "device-B").signedString
        let validity = TokenValidity.authN(token, allowedMvpds: allowed, now: now, deviceID: TokenFixtures.deviceID)
        #expect(validity.0 == .boundToAnotherDevice)
    }

    @Test func anUnreadableTokenIsMalformed() {
        let (validity, token) = TokenValidity.authN("garbage", allowedMvpds: allowed, now: now)
        guard case .malformed = validity else {
            Issue.record("expected malformed, got \(validity)")
            return
        }
        #expect(token == nil)
    }

    @Test func authorizationTokensFollowTheSameRules() {
        let valid = AuthZToken.fixture().signedString
        let expired = AuthZToken.fixture(expires: TokenFixtures.yesterday).signedString
        #expect(TokenValidity.authZ(valid, allowedMvpds: allowed, now: now).0 == .valid)
        #expect(TokenValidity.authZ(expired, allowedMvpds: allowed, now: now).0 == .expired(TokenFixtures.yesterday))
        #expect(TokenValidity.authZ(valid, allowedMvpds: ["MVPD9"], now: now).0 == .issuerNotAllowed("MVPD1"))
    }
}
