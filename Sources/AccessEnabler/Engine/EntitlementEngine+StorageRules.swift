import Foundation
import PassProtocol

/// The storage rules that run around the flows: which token counts (validity, SSO copy), and the work of
/// `setRequestor` (importer, sanitizer, passive authentication).
extension EntitlementEngine {
    /// The current requestor's valid authN token, copying one from another Programmer's bucket when SSO allows.
    func validAuthentication() -> ValidAuthentication? {
        guard let requestor else { return nil }
        let storage = loadStorage()
        if let found = Self.valid(in: storage, requestor: requestor, deviceID: deviceID, now: now()) { return found }
        return nil
    }

    static func valid(in storage: TokenStorage, requestor: ConfiguredRequestor, deviceID: String, now: Date) -> ValidAuthentication? {
        guard let bucket = storage.requestors[requestor.id] else { return nil }
        let order = (bucket.currentMvpdID.map { [$0] } ?? []) + bucket.mvpds.keys.sorted().filter { $0 != bucket.currentMvpdID }
        for mvpd in order {
            guard let tokens = bucket.mvpds[mvpd], let serialized = tokens.authnToken else { continue }
            let (validity, token) = TokenValidity.authN(serialized, allowedMvpds: requestor.allowedMvpds, now: now)
            if validity.isValid, let token {
                return ValidAuthentication(mvpd: mvpd, serialized: serialized, token: token, userMeta: tokens.userMeta)
            }
        }
        return nil
    }

    /// Runs during `setRequestor`, before `setRequestorComplete`.
    func prepareStorage() async {
    }
}
