import AccessEnabler
import Foundation
import PassProtocol
import PassSimulator

/// Shared values of the token fixtures: one clock reading and one signing key, so failures are reproducible.
enum TokenFixtures {
    /// "Now" in every storage test: 2027-01-15T08:00:00Z, a whole second.
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    /// A day after ``now``: the default expiry of fixture tokens.
    static let tomorrow = now.addingTimeInterval(86_400)
    /// A day before ``now``: for expired tokens.
    static let yesterday = now.addingTimeInterval(-86_400)
    /// The backend's key; the SDK side never checks signatures, but real tokens are signed.
    static let signingKey = try! TokenSigningKey(rawRepresentation: Data(repeating: 0x2A, count: 32))
    /// The device ID of the device the tests run on.
    static let deviceID = "device-A"
}

extension AuthNToken {
    /// An authN token body with sensible defaults: Programmer1 with MVPD1, on ``TokenFixtures/deviceID``, valid for a
    /// day after ``TokenFixtures/now``.
    static func fixture(
        requestor: String = "Programmer1",
        mvpd: String = "MVPD1",
        deviceID: String = TokenFixtures.deviceID,
        expires: Date = TokenFixtures.tomorrow,
        guid: String = "71C69B91-F327-F185-F29E-2CE20DC560F5"
    ) -> AuthNToken {
        AuthNToken(
            guid: guid, requestorID: requestor, expires: expires, mvpdID: mvpd,
            deviceFingerprint: DeviceFingerprint.make(deviceID: deviceID)
        )
    }

    /// The token string as the backend sends it and the storage keeps it.
    ///
    /// ECDSA signatures are randomized: signing the same body twice gives two different strings, so compare
    /// stored tokens by their body (``Swift/String/fixtureGUID``), not with a freshly signed string.
    var signedString: String { SignedToken.sign(self, with: TokenFixtures.signingKey).serialized }
}

extension String {
    /// The session GUID of the authN token this string holds, or `nil` when it is not one.
    var fixtureGUID: String? { try? SignedToken<AuthNToken>.parse(self).body.guid }
}

extension AuthZToken {
    /// An authZ token body with sensible defaults: Programmer1's resource `bravo` with MVPD1, valid for a day.
    static func fixture(
        requestor: String = "Programmer1",
        resource: String = "bravo",
        mvpd: String = "MVPD1",
        deviceID: String = TokenFixtures.deviceID,
        expires: Date = TokenFixtures.tomorrow
    ) -> AuthZToken {
        AuthZToken(
            requestorID: requestor, resourceID: resource, expires: expires, mvpdID: mvpd,
            deviceFingerprint: DeviceFingerprint.make(deviceID: deviceID)
        )
    }

    /// The token string as the backend sends it and the storage keeps it.
    var signedString: String { SignedToken.sign(self, with: TokenFixtures.signingKey).serialized }
}

extension TokenStorage {
    /// A storage where each `(requestor, mvpd)` pair has authenticated once, with default fixture tokens.
    static func fixture(authenticated pairs: [(requestor: String, mvpd: String)] = []) -> TokenStorage {
        var storage = TokenStorage()
        for (requestor, mvpd) in pairs {
            storage.storeAuthentication(
                requestor: requestor, mvpd: mvpd,
                authnToken: AuthNToken.fixture(requestor: requestor, mvpd: mvpd).signedString, userMeta: nil
            )
        }
        return storage
    }
}

extension LegacyTokenStorage {
    /// A pre-1.7 store: `currentMvpdId` and `canAuthenticate` set, a global token and per-requestor tokens as given.
    static func fixture(
        version: Version = .v2,
        currentMvpd: String? = "MVPD1",
        canAuthenticate: Bool = true,
        global: AuthNToken? = nil,
        globalMetadata: String? = nil,
        perRequestor: [String: AuthNToken] = [:]
    ) -> LegacyTokenStorage {
        var storage = LegacyTokenStorage(version: version)
        storage.currentMvpdID = currentMvpd
        storage.canAuthenticate = canAuthenticate
        storage.globalAuthnToken = global?.signedString
        storage.globalMetadata = globalMetadata
        for (requestor, token) in perRequestor {
            storage.setAuthnToken(token.signedString, requestor: requestor)
        }
        return storage
    }
}

extension DeviceProfile {
    /// A fixed iPhone: MAC `a4:83:e7:12:34:56`, iOS 17.2 unless told, a fixed vendor seed.
    static func fixture(osVersion: String = "17.2", vendorSeed: String = String(repeating: "5a", count: 32))
        -> DeviceProfile
    {
        DeviceProfile(
            hardwareAddress: "a4:83:e7:12:34:56", model: osVersion.hasPrefix("6") ? "iPhone5,2" : "iPhone15,2",
            osVersion: osVersion, vendorSeed: vendorSeed, advertisingID: "6D92078A-8246-4BA4-AE5B-76104861E7DC"
        )
    }
}
