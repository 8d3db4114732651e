/// The paths of the native SDK protocol, relative to the service provider's `{sp}` base (spec §3.6, §5.2).
///
/// `{sp}` is the service-provider URL plus `/1.0`, e.g. `https://sp.auth.adobe.com/adobe-services/1.0`;
/// the unversioned forms exist too.
public enum SDKEndpoint: String, CaseIterable, Sendable {
    /// `GET /config/{requestorId}`: the requestor configuration (append the requestor ID).
    case config = "/config/"
    /// `GET /authenticate/saml`: the login URL handed to `navigateToUrl:`.
    case authenticate = "/authenticate/saml"
    /// `POST /sessionDevice`: fetch the authentication token after login.
    case sessionDevice = "/sessionDevice"
    /// `POST /authorizeDevice`: fetch an authorization token.
    case authorizeDevice = "/authorizeDevice"
    /// `POST /deviceShortAuthorize`: fetch a short media token.
    case deviceShortAuthorize = "/deviceShortAuthorize"
    /// `GET /logout`: the logout URL followed in a hidden web view.
    case logout = "/logout"
    /// `POST /getMetadataDevice`: device-ID metadata.
    case getMetadataDevice = "/getMetadataDevice"
    /// `POST /usermetadata`: user metadata.
    case usermetadata = "/usermetadata"
    /// The redirect target of passive authentication; seeing it means "call `sessionDevice` now".
    case completePassiveAuthentication = "/completePassiveAuthentication"
    /// `POST /preauthorize`: preauthorization decisions.
    case preauthorize = "/preauthorize"
    /// `GET /cookieDomains`: cookie domains to keep per MVPD for passive authentication.
    case cookieDomains = "/cookieDomains"
    /// `/tokens`: token exchange (Apple SSO profile for an Adobe token).
    case tokens = "/tokens"
    /// `GET /oauth2?code=…&state=…` (or `?error=…&state=…`): where an MVPD that signs in through OAuth sends the
    /// browser back (spec §5.2.2); the SP exchanges the code and sends the browser on to the app's redirect URL.
    case oauth2 = "/oauth2"
    /// `/tokens/verificationCode`: purpose unknown (spec §10 open question 9).
    case tokensVerificationCode = "/tokens/verificationCode"

    /// The SP's SAML assertion consumer (spec §5.1), on the SP host but outside `{sp}`: the MVPD's answer
    /// (`SAMLResponse` + `RelayState`) is posted, or in the redirect shape sent as a query, here.
    public static let samlAssertionConsumer = "/sp/saml/SAMLAssertionConsumer"
}
