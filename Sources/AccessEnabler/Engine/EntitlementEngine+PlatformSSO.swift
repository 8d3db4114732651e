import Foundation
import PassProtocol

/// Apple SSO (cookbook: authentication with Apple SSO on iOS and tvOS; spec §1.5 step 4, §3.3 N003/N004/N005/VSA203).
extension EntitlementEngine {
    /// True when `getAuthentication` should offer the system picker: the app provides platform services and the
    /// requestor has at least one MVPD with platform SSO.
    func usesPlatformPicker(_ requestor: ConfiguredRequestor) -> Bool {
        configuration.platformServices != nil && requestor.mvpds.contains(where: \.enablePlatformServices)
    }

    /// Cookbook flows D (iOS) and E (tvOS): `presentTvProviderDialog`, then what the user did in it.
    ///
    /// The order is the cookbook's: a sign-in ends with `setAuthenticationStatus` (iOS) or `status(REGCODE)`, polling
    /// and `setAuthenticationStatus` (tvOS); `dismissTvProviderDialog` only when the user leaves the dialog (cancel,
    /// "Other TV Provider", an unsupported provider, no account, a platform failure).
    func platformSignIn(_ requestor: ConfiguredRequestor) async {
        guard let services = configuration.platformServices else { return }
        let offered = requestor.mvpds.filter(\.enablePlatformServices)
        callback(.presentTvProviderDialog)
        let result = await services.requestSignIn(mvpds: offered)
        switch result {
        case .signedIn(let mvpd, _, _) where platform == .tvOS, .picked(let mvpd):
            // Flow E (tvOS) and Apple's picker-only boarding: the SDK signs in for the picked provider itself.
            guard requestor.mvpd(mvpd) != nil else {
                await platformPickedUnsupported(mvpd, requestor)
                return
            }
            // On tvOS (flow E) the provider chosen in the Apple TV's dialog is kept in Settings → TV Provider: the
            // sign-in the second screen makes for it is the platform's (logout: VSA203). iOS's picker-only boarding
            // hands nothing to the platform.
            if platform == .tvOS { platformPick = mvpd }
            if rememberedMvpd(requestor.id) != mvpd {
                callback(.sendTrackingData(event: .mvpdSelection, data: requestor.tracking.mvpdSelection(mvpd: mvpd)), mvpd: mvpd)
            }
            await startLogin(mvpd: mvpd)
        case .signedIn(let mvpd, let saml, let expires) where onRESTv2:
            await partnerSignInRESTv2(mvpd: mvpd, samlResponse: saml, expires: expires, requestor: requestor)
        case .signedIn(let mvpd, let saml, _):
            advanceAuthentication { $0.tokenRequested(mvpd: mvpd) }
            do {
                try await client(for: mvpd).exchangePlatformToken(requestorID: requestor.id, deviceID: deviceID, mvpdID: mvpd, samlResponse: saml)
            } catch {
                status(.AAPL_ERROR, message: "The platform sign-in could not be exchanged: \(error)")
                authenticationFailed(mvpd: mvpd, code: .genericAuthentication, message: "Token exchange failed: \(error)")
                return
            }
            if rememberedMvpd(requestor.id) != mvpd {
                callback(.sendTrackingData(event: .mvpdSelection, data: requestor.tracking.mvpdSelection(mvpd: mvpd)), mvpd: mvpd)
            }
            await fetchAuthNToken(mvpd: mvpd)
        case .noAccount:
            // Not signed in to any TV provider: nothing to hand over, the SDK's own picker takes over (no status: the
            // cookbook defines none for it; the console tells it from N003 by its absence).
            callback(.dismissTvProviderDialog)
            callback(.displayProviderDialog(mvpds: requestor.mvpds))
        case .permissionDenied:
            callback(.dismissTvProviderDialog)
            status(.VSA403, message: "This app may not use the TV provider account (Settings → TV Provider): the SDK's picker follows.")
            callback(.displayProviderDialog(mvpds: requestor.mvpds))
        case .otherProvider:
            callback(.dismissTvProviderDialog)
            status(.N003)
            callback(.displayProviderDialog(mvpds: requestor.mvpds))
        case .unsupportedProvider(let mvpd):
            await platformPickedUnsupported(mvpd, requestor)
        case .cancelled:
            callback(.dismissTvProviderDialog)
            cancelAuthentication()
        case .failed(let reason):
            callback(.dismissTvProviderDialog)
            status(.AAPL_ERROR, message: reason, extra: ["details": reason])
            callback(.displayProviderDialog(mvpds: requestor.mvpds))
        }
    }

    /// The user picked, in the Apple dialog, a provider this Programmer does not support for single sign-on: `N004`
    /// and the SDK's own picker.
    private func platformPickedUnsupported(_ mvpd: String, _ requestor: ConfiguredRequestor) async {
        callback(.dismissTvProviderDialog)
        status(.N004, message: "\(mvpd) is not supported by \(requestor.id) for single sign-on.")
        callback(.displayProviderDialog(mvpds: requestor.mvpds))
    }

    /// Whether the stored sign-in of `requestor`/`mvpd` came from platform SSO (user metadata `tokenSource`).
    static func cameFromPlatformSSO(_ storage: TokenStorage, requestor: String, mvpd: String?) -> Bool {
        if let mvpd, storage.bucket(requestor: requestor, mvpd: mvpd)?.platformSignIn == true { return true }
        guard let mvpd, let meta = storage.bucket(requestor: requestor, mvpd: mvpd)?.userMeta,
            let parsed = try? UserMetadata.decode(json: Data(meta.utf8))
        else { return false }
        return parsed.data["tokenSource"] == .string("apple")
    }
}

extension SDKClient {
    /// `POST {sp}/tokens`: exchanges the platform's SAML profile for a session `sessionDevice` then returns.
    func exchangePlatformToken(requestorID: String, deviceID: String, mvpdID: String, samlResponse: String) async throws(Failure) {
        let form = [("requestor_id", requestorID), ("device_id", deviceID), ("mso_id", mvpdID), ("SAMLResponse", samlResponse)]
        let answer: HTTPTransport.Answer
        do { answer = try await transport.post(URL(string: sp.absoluteString + SDKEndpoint.tokens.rawValue)!, form: form) } catch {
            throw .unreachable(error.reason)
        }
        guard (200..<300).contains(answer.status) else {
            throw .status(answer.status, details: SDKResponses.parseError(answer.body), code: nil)
        }
    }
}
