import Foundation
import PassProtocol

/// The Apple dialog's sign-in on REST API v2 (design note §8.4): partner single sign-on instead of the platform
/// services' token exchange. The platform's SAML response becomes an `appleSSO` profile; when the service falls back
/// to the basic flow (`pfs_fallback`, `configuration_fallback`), the MVPD's login page follows with the answer's own
/// session.
extension EntitlementEngine {
    /// iOS: the user signed in (or was) at `mvpd` in the Apple dialog.
    func partnerSignInRESTv2(mvpd: String, samlResponse: String, expires: Date?, requestor: ConfiguredRequestor) async {
        advanceAuthentication { $0.tokenRequested(mvpd: mvpd) }
        // What the partner framework says (the cookbook: permission granted, the provider, and its expiration date
        // "if available": without one the service takes the status as live).
        let status = V2.PartnerFrameworkStatus(
            accessStatus: "granted", providerID: mvpd, expirationDate: expires.map(EpochMilliseconds.string)).base64
        var client = v2Client(base: requestor.mvpdServiceProviders[mvpd])
        client.partnerStatus = status
        let redirect = configuration.redirectURL
        let partner: V2.PartnerSession
        do {
            partner = try await client.partnerSession(redirectURL: redirect)
        } catch {
            partnerSignInFailed(mvpd: mvpd, "The partner session could not be made: \(Self.describeV2(error))", code: Self.v2Code(error))
            return
        }
        // The MVPD chosen in the dialog (after the exchange, as on the seeds' protocol).
        let trackSelection = { [requestor] in
            if self.rememberedMvpd(requestor.id) != mvpd {
                self.callback(.sendTrackingData(event: .mvpdSelection, data: requestor.tracking.mvpdSelection(mvpd: mvpd)), mvpd: mvpd)
            }
        }
        switch partner.session.actionName {
        case "partner_profile":
            let profiles: [String: V2.Profile]
            do {
                profiles = try await client.partnerProfile(samlResponse: samlResponse)
            } catch {
                partnerSignInFailed(mvpd: mvpd, "The partner's profile was refused: \(Self.describeV2(error))", code: Self.v2Code(error))
                return
            }
            guard let profile = profiles[mvpd] ?? profiles.values.first else {
                partnerSignInFailed(mvpd: mvpd, "The partner's profile answer names no profile.", code: nil)
                return
            }
            trackSelection()
            await signedInRESTv2(requestor, mvpd: mvpd, profile: profile, partnerStatus: status)
        case "authorize":
            trackSelection()
            await finishRESTv2Login(code: nil, mvpd: mvpd, partnerStatus: status)
        default:
            // authenticate (pfs_fallback, configuration_fallback): the MVPD's login page with this session;
            // resume cannot happen (domainName and redirectUrl are always sent) and fails.
            client.partnerStatus = nil
            trackSelection()
            await followRESTv2Session(partner.session, client: client, mvpd: mvpd, redirect: redirect, useSVC: false)
        }
    }

    private func partnerSignInFailed(mvpd: String, _ message: String, code: String?) {
        status(.AAPL_ERROR, message: message)
        authenticationFailed(mvpd: mvpd, code: .genericAuthentication, message: message, errorCode: code)
    }
}
