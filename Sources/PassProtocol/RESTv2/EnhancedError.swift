import Foundation

/// An error in the vendor's enhanced error-code format (REST API v2 and the newer v1 answers): the body of a failed
/// call ("top-level") or the `error` of one decision ("item-level"). The documented codes, their HTTP status, the
/// recommended action and the vendor's message live in ``Code``: every v2 answer names its errors from there.
public struct EnhancedError: Error, Codable, Sendable, Equatable {
    public var action: String
    public var status: Int
    public var code: String
    public var message: String
    /// A partner's own words (an MVPD's denial text), when it gave some.
    public var details: String?
    public var helpUrl: String
    /// The answer's identifier, to quote to support.
    public var trace: String?

    public init(_ code: Code, details: String? = nil, trace: String? = UUID().uuidString.lowercased()) {
        action = code.action.rawValue
        status = code.status
        self.code = code.rawValue
        message = code.message
        self.details = details
        helpUrl = Self.helpURL
        self.trace = trace
    }

    /// A refusal the vendor's list has no code for (a malformed path, a body over the cap, an unknown route), in the
    /// format: its own code, status and words, action `none`.
    public init(status: Int, code: String, message: String, details: String? = nil) {
        action = Action.none.rawValue
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        helpUrl = Self.helpURL
        trace = UUID().uuidString.lowercased()
    }

    /// The help page the vendor's samples link.
    public static let helpURL = "https://experienceleague.adobe.com/docs/pass/authentication/auth-features/error-reportn/enhanced-error-codes.html"

    /// The recommended remedy (`action`).
    public enum Action: String, Sendable, CaseIterable {
        case none, configuration, applicationRegistration = "application-registration", authentication, authorization, retry

        /// What the action asks of an app, in words (the console shows it).
        public var words: String {
            switch self {
            case .none: "nothing predefined: the request itself may be wrong"
            case .configuration: "a configuration change (usually in the TVE Dashboard)"
            case .applicationRegistration: "the app must register again (dynamic client registration)"
            case .authentication: "the user must sign in (again)"
            case .authorization: "the app must ask for authorization again"
            case .retry: "retry the request"
            }
        }
    }

    /// The documented REST API v2 codes (help/authentication/.../enhanced-error-codes.md, the v2 list).
    public enum Code: String, Sendable, CaseIterable {
        case invalidParameterServiceProvider = "invalid_parameter_service_provider"
        case invalidParameterMVPD = "invalid_parameter_mvpd"
        case invalidParameterCode = "invalid_parameter_code"
        case invalidParameterResources = "invalid_parameter_resources"
        case invalidParameterRedirectURL = "invalid_parameter_redirect_url"
        case invalidParameterPartner = "invalid_parameter_partner"
        case invalidParameterSAMLResponse = "invalid_parameter_saml_response"
        case invalidHeaderDeviceInfo = "invalid_header_device_info"
        case invalidHeaderDeviceIdentifier = "invalid_header_device_identifier"
        case invalidHeaderIdentityForTemporaryAccess = "invalid_header_identity_for_temporary_access"
        case invalidHeaderPFSPermissionAccessNotPresent = "invalid_header_pfs_permission_access_not_present"
        case invalidHeaderPFSPermissionAccessNotDetermined = "invalid_header_pfs_permission_access_not_determined"
        case invalidHeaderPFSPermissionAccessNotGranted = "invalid_header_pfs_permission_access_not_granted"
        case invalidHeaderPFSProviderIDNotDetermined = "invalid_header_pfs_provider_id_not_determined"
        case invalidHeaderPFSProviderIDMismatch = "invalid_header_pfs_provider_id_mismatch"
        case invalidHeaderPFSProviderInfoExpired = "invalid_header_pfs_provider_info_expired"
        case invalidIntegration = "invalid_integration"
        case invalidAuthenticationSession = "invalid_authentication_session"
        case preauthorizationDeniedByMVPD = "preauthorization_denied_by_mvpd"
        case authorizationDeniedByMVPD = "authorization_denied_by_mvpd"
        case authorizationDeniedByDegradationRule = "authorization_denied_by_degradation_rule"
        case internalServerError = "internal_server_error"
        case tooManyResources = "too_many_resources"
        case invalidAccessTokenServiceProvider = "invalid_access_token_service_provider"
        case invalidAccessTokenClientApplication = "invalid_access_token_client_application"
        case temporaryAccessDurationLimitExceeded = "temporary_access_duration_limit_exceeded"
        case temporaryAccessResourcesLimitExceeded = "temporary_access_resources_limit_exceeded"
        case authenticatedProfileMissing = "authenticated_profile_missing"
        case authenticatedProfileExpired = "authenticated_profile_expired"
        case authenticatedProfileInvalidated = "authenticated_profile_invalidated"
        case authorizationDeniedBySessionInvalidated = "authorization_denied_by_session_invalidated"
        case networkConnectionTimeout = "network_connection_timeout"

        public var status: Int {
            switch self {
            case .internalServerError: 500
            case .invalidAccessTokenServiceProvider, .invalidAccessTokenClientApplication: 401
            case .preauthorizationDeniedByMVPD, .authorizationDeniedByMVPD, .authorizationDeniedByDegradationRule, .tooManyResources,
                .authenticatedProfileMissing, .authenticatedProfileExpired, .authenticatedProfileInvalidated,
                .authorizationDeniedBySessionInvalidated, .networkConnectionTimeout, .temporaryAccessDurationLimitExceeded,
                .temporaryAccessResourcesLimitExceeded:
                403
            default: 400
            }
        }

        public var action: Action {
            switch self {
            case .tooManyResources: .configuration
            case .invalidAccessTokenServiceProvider, .invalidAccessTokenClientApplication: .applicationRegistration
            case .authenticatedProfileMissing, .authenticatedProfileExpired, .authenticatedProfileInvalidated,
                .authorizationDeniedBySessionInvalidated, .temporaryAccessDurationLimitExceeded, .temporaryAccessResourcesLimitExceeded:
                .authentication
            case .networkConnectionTimeout: .retry
            default: .none
            }
        }

        /// The vendor's message, verbatim.
        public var message: String {
            switch self {
            case .invalidParameterServiceProvider: "The service provider parameter value is missing or invalid."
            case .invalidParameterMVPD: "The mvpd parameter value is missing or invalid."
            case .invalidParameterCode: "The code parameter value is missing or invalid."
            case .invalidParameterResources: "The resources parameter value is missing or invalid."
            case .invalidParameterRedirectURL: "The redirect URL parameter value is missing or invalid."
            case .invalidParameterPartner: "The partner parameter value is missing or invalid."
            case .invalidParameterSAMLResponse: "The SAML response parameter value is missing or invalid."
            case .invalidHeaderDeviceInfo: "The device information header value is missing or invalid."
            case .invalidHeaderDeviceIdentifier: "The device identifier header value is missing or invalid."
            case .invalidHeaderIdentityForTemporaryAccess: "The identity for temporary access header value is missing or invalid."
            case .invalidHeaderPFSPermissionAccessNotPresent:
                "The permission access status value from the partner framework status header is not present."
            case .invalidHeaderPFSPermissionAccessNotDetermined:
                "The permission access status value from the partner framework status header is undetermined."
            case .invalidHeaderPFSPermissionAccessNotGranted:
                "The permission access status value from the partner framework status header is not granted."
            case .invalidHeaderPFSProviderIDNotDetermined:
                "The provider id value from the partner framework status header is not associated with a known mvpd."
            case .invalidHeaderPFSProviderIDMismatch:
                "The provider id value from the partner framework status header does not match the mvpd sent as parameter."
            case .invalidHeaderPFSProviderInfoExpired: "The provider information from the partner framework status header has expired."
            case .invalidIntegration: "The integration between the specified service provider and mvpd does not exist or is disabled."
            case .invalidAuthenticationSession: "The authentication session associated with this request is missing or invalid."
            case .preauthorizationDeniedByMVPD:
                "The MVPD has returned a \"Deny\" decision when requesting pre-authorization for the specified resource."
            case .authorizationDeniedByMVPD: "The MVPD has returned a \"Deny\" decision when requesting authorization for the specified resource."
            case .authorizationDeniedByDegradationRule:
                "The integration between the specified service provider and mvpd has a degradation rule applied that denies authorization for the requested resources."
            case .internalServerError: "The request failed due to an internal server error."
            case .tooManyResources:
                "The authorization or preauthorization request failed because too many resources were queried. Please contact support team to properly configure the authorization and preauthorization limitations."
            case .invalidAccessTokenServiceProvider: "The access token is invalid due to invalid service provider."
            case .invalidAccessTokenClientApplication: "The access token is invalid due to invalid client application."
            case .temporaryAccessDurationLimitExceeded: "The temporary access duration limit has been exceeded."
            case .temporaryAccessResourcesLimitExceeded: "The temporary access resources limit has been exceeded."
            case .authenticatedProfileMissing: "The authenticated profile associated with this request is missing."
            case .authenticatedProfileExpired: "The authenticated profile associated with this request has expired."
            case .authenticatedProfileInvalidated: "The authenticated profile associated with this request has been invalidated."
            case .authorizationDeniedBySessionInvalidated:
                "The authentication session was invalidated by the identity provider. The user must re-authenticate with a supported MVPD in order to continue."
            case .networkConnectionTimeout:
                "There was a connection timeout with the associated partner service. Retrying the request might solve the issue."
            }
        }
    }
}
