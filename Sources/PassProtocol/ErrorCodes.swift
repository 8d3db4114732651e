/// The error-code strings of the original error system, passed as `code` to `setAuthenticationStatus:` and
/// `tokenRequestFailed:` (spec §3.2).
///
/// Raw values use the iOS header's spelling where the header has the code, Adobe's documentation spelling
/// otherwise; Adobe's docs capitalise some differently (`Provider not Selected Error`), so compare with
/// ``init(matching:)`` when reading codes from elsewhere.
public enum ErrorCode: String, CaseIterable, Codable, Sendable {
    /// `Internal Error`: an internal SDK failure.
    case internalError = "Internal Error"
    /// `Provider Not Selected Error`: the user cancelled the picker or the login.
    case providerNotSelected = "Provider Not Selected Error"
    /// `Provider not Available Error`: no answer from the backend to `sessionDevice`.
    case providerNotAvailable = "Provider not Available Error"
    /// `Generic Authentication Error`: authentication failed for an unknown or unpublished reason.
    case genericAuthentication = "Generic Authentication Error"
    /// `Internal Authentication Error`: a system error during authentication (non-200 `sessionDevice`).
    case internalAuthentication = "Internal Authentication Error"
    /// `User Not Authenticated Error`: no valid authentication token.
    case userNotAuthenticated = "User Not Authenticated Error"
    /// `Generic Authorization Error`: authorization failed for an unknown reason (no answer, network).
    case genericAuthorization = "Generic Authorization Error"
    /// `Internal Authorization Error`: a system error during authorization (non-200 answer).
    case internalAuthorization = "Internal Authorization Error"
    /// `User Not Authorized Error`: the MVPD denied the resource.
    case userNotAuthorized = "User Not Authorized Error"
    /// `Handled User Not Authorized Error`: a denial the MVPD handled itself (3.x).
    case handledUserNotAuthorized = "Handled User Not Authorized Error"
    /// `API Version too old. Please update your application.`: the configuration call answered 410.
    case serverAPITooOld = "API Version too old. Please update your application."

    /// The code whose text equals `code` ignoring case, so both Adobe spellings are recognised.
    public init?(matching code: String) {
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == code.lowercased() }) else {
            return nil
        }
        self = match
    }

    /// What the code means and what the app should do, in plain words.
    public var explanation: String {
        switch self {
        case .internalError: "Something failed inside the SDK. Retry; report it if it persists."
        case .providerNotSelected: "The user cancelled choosing or signing in with a TV provider."
        case .providerNotAvailable: "The authentication service did not answer. Check the network and retry."
        case .genericAuthentication: "Authentication failed for a reason the service does not disclose. Sign in again."
        case .internalAuthentication: "The authentication service reported an error. Retry later."
        case .userNotAuthenticated: "The user is not signed in with a TV provider. Start authentication."
        case .genericAuthorization: "Authorization failed, usually because the service could not be reached. Retry."
        case .internalAuthorization: "The authorization service reported an error. Retry later."
        case .userNotAuthorized: "The TV provider does not let this user watch this resource."
        case .handledUserNotAuthorized: "The TV provider denied this resource and has already told the user why."
        case .serverAPITooOld: "This SDK version is no longer supported by the service. Update the app."
        }
    }

    // MARK: - iOS constant names (seed names, kept verbatim for searchability)

    /// `USER_AUTHENTICATED`: the error code reported with a successful authentication, `""`.
    public static let USER_AUTHENTICATED = ""
    /// `USER_NOT_AUTHENTICATED_ERROR`.
    public static let USER_NOT_AUTHENTICATED_ERROR = ErrorCode.userNotAuthenticated.rawValue
    /// `USER_NOT_AUTHORIZED_ERROR`.
    public static let USER_NOT_AUTHORIZED_ERROR = ErrorCode.userNotAuthorized.rawValue
    /// `HANDLED_USER_NOT_AUTHORIZED_ERROR` (3.x).
    public static let HANDLED_USER_NOT_AUTHORIZED_ERROR = ErrorCode.handledUserNotAuthorized.rawValue
    /// `PROVIDER_NOT_SELECTED_ERROR`.
    public static let PROVIDER_NOT_SELECTED_ERROR = ErrorCode.providerNotSelected.rawValue
    /// `PROVIDER_NOT_AVAILABLE_ERROR` (Android name).
    public static let PROVIDER_NOT_AVAILABLE_ERROR = ErrorCode.providerNotAvailable.rawValue
    /// `GENERIC_AUTHENTICATION_ERROR`.
    public static let GENERIC_AUTHENTICATION_ERROR = ErrorCode.genericAuthentication.rawValue
    /// `GENERIC_AUTHORIZATION_ERROR`.
    public static let GENERIC_AUTHORIZATION_ERROR = ErrorCode.genericAuthorization.rawValue
    /// `INTERNAL_ERROR` (Android name).
    public static let INTERNAL_ERROR = ErrorCode.internalError.rawValue
    /// `INTERNAL_AUTHENTICATION_ERROR` (Android name).
    public static let INTERNAL_AUTHENTICATION_ERROR = ErrorCode.internalAuthentication.rawValue
    /// `INTERNAL_AUTHORIZATION_ERROR` (Android name).
    public static let INTERNAL_AUTHORIZATION_ERROR = ErrorCode.internalAuthorization.rawValue
    /// `SERVER_API_TOO_OLD`.
    public static let SERVER_API_TOO_OLD = ErrorCode.serverAPITooOld.rawValue
    /// `AUTHZ_HANDLED_ERROR_CODES`: server error codes the 3.x SDK treats as handled authorization denials.
    public static let AUTHZ_HANDLED_ERROR_CODES = ["invalid", "authzNone", "network"]
}
