import Foundation
import PassProtocol

/// The MVPD side of a login in progress (spec §5.2.2–5.2.3): what the MVPD's pages learn and hand out — the
/// `AuthnRequest` it received, the subscriber whose password it accepted, an OAuth authorization code — kept on the
/// ``LoginSession`` the SP opened, so one record ties the SP's `RelayState`/`state` to the MVPD's answer.
extension BackendService {
    /// The OAuth client ID the SP uses at every OAuth MVPD.
    static let oauthClientID = "adobepass"
    /// The SP's OAuth return, the `redirect_uri` it registers with OAuth MVPDs.
    static let oauthRedirectURI = SDKRoutes.prefixes[0] + SDKEndpoint.oauth2.rawValue
    /// How long an authorization code can be redeemed.
    static let oauthCodeLifetime: TimeInterval = 60
    /// How long the SP accepts an MVPD's SAML answer.
    static let samlResponseLifetime: TimeInterval = 300

    /// Changes a login in progress; `nil` when there is none with this ID.
    @discardableResult
    func updateLogin(_ id: String, _ change: (inout LoginSession) -> Void) -> LoginSession? {
        state.withLock { state in
            guard var login = state.logins[id] else { return nil }
            change(&login)
            state.logins[id] = login
            return login
        }
    }

    /// The demo subscriber of `mvpdID` with this user name.
    func subscriber(mvpd mvpdID: String, username: String) -> Subscriber? {
        configuration.subscribers.first { $0.mvpd == mvpdID && $0.username == username }
    }

    /// The MVPD's signed SAML answer for a login whose password it accepted.
    func samlResponse(for login: LoginSession, subscriber: Subscriber) -> String {
        let now = now()
        return SAMLResponse(
            inResponseTo: login.mvpdRequestID ?? login.requestID, issueInstant: now,
            issuer: SAMLNames.mvpdEntityID(login.mvpdID), nameID: subscriber.userID,
            notOnOrAfter: now.addingTimeInterval(Self.samlResponseLifetime),
            attributes: ["username": subscriber.username, "userID": subscriber.userID]
        ).signedBase64(key: assertionKey)
    }

    /// A new single-use authorization code for a login whose password the OAuth MVPD accepted.
    func mintOAuthCode(for login: LoginSession) -> String {
        let code = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let expires = now().addingTimeInterval(Self.oauthCodeLifetime)
        updateLogin(login.id) { login in
            login.oauthCode = code
            login.oauthCodeExpires = expires
        }
        return code
    }

    /// Why an authorization code was not redeemed (OAuth 2.0 error codes).
    enum OAuthRefusal: Error, Equatable {
        case invalidClient, invalidGrant(String)

        var code: String {
            switch self {
            case .invalidClient: "invalid_client"
            case .invalidGrant: "invalid_grant"
            }
        }

        var message: String {
            switch self {
            case .invalidClient: "The client_id or redirect_uri is not the SP's."
            case .invalidGrant(let why): why
            }
        }
    }

    /// Redeems an authorization code of `mvpdID` (the token endpoint and the SP's `oauth2` return both do): once, before
    /// it expires, by the SP's client and redirect URI. Returns the login and the subscriber it was issued for.
    func redeemOAuthCode(_ code: String, mvpdID: String, clientID: String, redirectURI: String) throws(OAuthRefusal)
        -> (LoginSession, Subscriber)
    {
        guard clientID == Self.oauthClientID, redirectURI == Self.oauthRedirectURI else { throw .invalidClient }
        let now = now()
        let found: LoginSession? = state.withLock { state in
            guard !code.isEmpty, var login = state.logins.values.first(where: { $0.oauthCode == code && $0.mvpdID == mvpdID })
            else { return nil }
            login.oauthCode = nil
            state.logins[login.id] = login
            return login
        }
        guard let login = found else { throw .invalidGrant("The authorization code is unknown or was already used.") }
        guard let expires = login.oauthCodeExpires, expires > now else {
            throw .invalidGrant("The authorization code has expired.")
        }
        guard let username = login.signedInAs, let subscriber = subscriber(mvpd: mvpdID, username: username) else {
            throw .invalidGrant("The authorization code names no subscriber.")
        }
        return (login, subscriber)
    }
}
