import AccessEnabler
import Foundation
import PassProtocol

/// Whether a sign-in made in one Programmer's app reaches another Programmer's app on the same shared storage, MVPD
/// by MVPD. Not a table of guesses: the SDK's own storage rules run over a storage holding that one sign-in
/// (``TokenStorage/copySSOToken(_:)`` for silent SSO, ``TokenStorage/passiveAuthenticationCandidate(_:)`` for
/// passive authentication, both with ``TokenValidity``); the copy takes only tokens the service's ``RequestorBinding``
/// accepts from the second Programmer, so a copied sign-in is one the backend honours.
enum SSOPrediction {
    /// One MVPD's way from the first Programmer to the second.
    struct Path: Encodable, Sendable, Equatable {
        var mvpd: String
        /// `sso` (the SDK copies the token and the service accepts it), `passive` (passive authentication gets a token
        /// of the second Programmer's own), `signInAgain`.
        var outcome: String
        /// The side that stops it, for `signInAgain`.
        var side: Refusal.Side?
        var rule: String?
        var reason: String

        var works: Bool { outcome == "sso" || outcome == "passive" }
    }

    /// Signs the hypothetical tokens. The SDK's rules read a token's fields and never its signature, so any key does.
    private static let key = TokenSigningKey()

    /// The paths from `first` (signed in) to `second` (starting next) for every MVPD both integrate.
    static func paths(
        from first: RequestorConfiguration, to second: RequestorConfiguration, deviceID: String, now: Date
    ) -> [Path] {
        let common = first.mvpds.map(\.id).filter { id in second.mvpd(id) != nil }
        return common.map { mvpd in path(mvpd, from: first.requestorID, to: second, deviceID: deviceID, now: now) }
    }

    static func path(
        _ mvpd: String, from source: String, to second: RequestorConfiguration, deviceID: String, now: Date
    ) -> Path {
        let target = second.requestorID
        let body = AuthNToken(
            guid: "sso-prediction", requestorID: source, expires: now.addingTimeInterval(3600), mvpdID: mvpd,
            deviceFingerprint: DeviceFingerprint.make(deviceID: deviceID))
        var storage = TokenStorage()
        storage.storeAuthentication(
            requestor: source, mvpd: mvpd, authnToken: SignedToken.sign(body, with: key).serialized, userMeta: nil)
        let context = SSOContext(second, requestorID: target, storage: storage, deviceID: deviceID, now: now)
        var copied = storage
        if copied.copySSOToken(context) != nil {
            // The copy takes only a token the service accepts from the second Programmer (RequestorBinding).
            return Path(
                mvpd: mvpd, outcome: "sso",
                reason:
                    "\(mvpd) signs in once for every Programmer (no authentication per requestor): the SDK copies "
                    + "\(source)'s token for \(target) (silent SSO) and the backend accepts it.")
        }
        if storage.passiveAuthenticationCandidate(context) == mvpd {
            return Path(
                mvpd: mvpd, outcome: "passive",
                reason:
                    "\(mvpd) signs in per Programmer, with passive authentication: \(target)'s setRequestor gets a token "
                    + "of its own without a login page.")
        }
        return Path(
            mvpd: mvpd, outcome: "signInAgain", side: .sdkStorage, rule: "authentication per requestor",
            reason:
                "\(mvpd) signs in per Programmer without passive authentication: the SDK never copies its tokens, so "
                + "the viewer signs in again in \(target)'s app.")
    }
}
