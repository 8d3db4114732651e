import Foundation

/// SDK constants shared by both sides of the wire (spec §3.1, §3.6), under their iOS header names.
public enum PassConstants: Sendable {
    /// `ACCESS_ENABLER_STATUS_SUCCESS`: the status `1` of `setRequestorComplete:` and `setAuthenticationStatus:`.
    public static let ACCESS_ENABLER_STATUS_SUCCESS = 1
    /// `ACCESS_ENABLER_STATUS_ERROR`: the status `0`.
    public static let ACCESS_ENABLER_STATUS_ERROR = 0

    /// `ADOBEPASS_REDIRECT_URL` (3.x): where the login and logout web flows end; the app intercepts it and
    /// calls `handleExternalURL:` instead of loading it.
    public static let ADOBEPASS_REDIRECT_URL = "adobepass://ios.app"
    /// The 1.x–2.x value of `ADOBEPASS_REDIRECT_URL`.
    public static let ADOBEPASS_REDIRECT_URL_LEGACY = "http://adobepass.ios.app/"
    /// The Android value of the redirect-back URL.
    public static let ADOBEPASS_REDIRECT_URL_ANDROID = "adobepass://android.app"
    /// The prefix of an app's own redirect scheme when SFSafariViewController is used,
    /// e.g. `adbe.u-XFX…://adobe.com`.
    public static let CUSTOM_SCHEME_PREFIX = "adbe."

    /// An app's SFSafariViewController redirect URL: `adbe.<id>://adobe.com`, `<id>` lowercased and reduced to the
    /// characters a URL scheme allows (letters, digits, `.`, `-`, `+`; anything else becomes `-`).
    public static func svcRedirectURL(appID: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789.-+")
        let id = String(appID.lowercased().map { allowed.contains($0) ? $0 : "-" })
        return CUSTOM_SCHEME_PREFIX + (id.isEmpty ? "app" : id) + "://adobe.com"
    }

    /// Whether `url` is the redirect `expected` names: same scheme and host, case-insensitive (the query, such as
    /// `?error=…`, may differ).
    public static func isRedirect(_ url: String, to expected: String) -> Bool {
        func origin(_ text: String) -> (String, String)? {
            guard let components = URLComponents(string: text), let scheme = components.scheme else { return nil }
            return (scheme.lowercased(), (components.host ?? "").lowercased())
        }
        guard let a = origin(url), let b = origin(expected) else { return false }
        return a == b
    }

    /// `CLIENT_TYPE` on iOS, sent as `client_type`.
    public static let CLIENT_TYPE_IOS = "iOS"
    /// `CLIENT_TYPE` on tvOS, sent as `client_type`.
    public static let CLIENT_TYPE_TVOS = "tvOS"

    /// `SP_AUTH_PRODUCTION`: the default service provider (apps pass it without a scheme).
    public static let SP_AUTH_PRODUCTION = "sp.auth.adobe.com/adobe-services"
    /// `SP_AUTH_STAGING`.
    public static let SP_AUTH_STAGING = "sp.auth-staging.adobe.com/adobe-services"
    /// `API_PRODUCTION`: the Clientless REST host (tvOS second screen).
    public static let API_PRODUCTION = "api.auth.adobe.com"
    /// `API_STAGING`.
    public static let API_STAGING = "api.auth-staging.adobe.com"
    /// `SP_SAML_PRODUCTION`: the SAML entity ID of the service provider.
    public static let SP_SAML_PRODUCTION = "https://saml.sp.auth.adobe.com"
    /// `SP_SAML_STAGING`.
    public static let SP_SAML_STAGING = "https://saml.sp.auth-staging.adobe.com"
    /// `SP_URL_DOMAIN_NAME`: the `domain_name` parameter.
    public static let SP_URL_DOMAIN_NAME = "adobe.com"

    /// `CLIENTLESS_POLL_TIMER_INTERVAL`: tvOS second-screen polling period, in seconds.
    public static let CLIENTLESS_POLL_TIMER_INTERVAL = 10
    /// `CLIENTLESS_REGCODE_TTL`: the registration-code lifetime the SDK asks for, in seconds.
    public static let CLIENTLESS_REGCODE_TTL = 1800
    /// The longest registration-code lifetime the REST API accepts, in seconds; more is a 400.
    public static let REGCODE_MAX_TTL = 36000
    /// `HTTP_RETRY_LIMIT`: retries per network call.
    public static let HTTP_RETRY_LIMIT = 1

    // MARK: getMetadata (spec §1.11)

    /// `METADATA_OPCODE_KEY`: the `getMetadata` dictionary's key naming what is asked for.
    public static let METADATA_OPCODE_KEY = "opCode"
    /// `METADATA_AUTHENTICATION`: the authentication token's expiry (TTL_AUTHN).
    public static let METADATA_AUTHENTICATION = 0
    /// `METADATA_AUTHORIZATION`: the expiry of the authorization token for `METADATA_RESOURCE_ID_KEY` (TTL_AUTHZ).
    public static let METADATA_AUTHORIZATION = 1
    /// `METADATA_DEVICE_ID`: the device ID the SDK sends.
    public static let METADATA_DEVICE_ID = 2
    /// `METADATA_USER_META`: one user-metadata item, named by `METADATA_USER_META_KEY`.
    public static let METADATA_USER_META = 3
    /// `METADATA_KEY_INVALID`: the op code of a dictionary without a readable `opCode`.
    public static let METADATA_KEY_INVALID = 255
    /// `METADATA_RESOURCE_ID_KEY`: the resource whose authorization expiry `METADATA_AUTHORIZATION` asks for.
    public static let METADATA_RESOURCE_ID_KEY = "resource_id"
    /// `METADATA_USER_META_KEY`: the user-metadata item `METADATA_USER_META` asks for (`zip`, `householdID`, …).
    public static let METADATA_USER_META_KEY = "user_metadata_name"

    // MARK: setOptions (spec §1.2)

    /// `OPTION_PROFILE`: the application profile the server may pick a configuration by.
    public static let OPTION_PROFILE = "applicationProfile"
    /// `OPTION_VISITOR_ID`: the Experience Cloud visitor ID, sent with every later request as
    /// ``HEADER_VISITOR_ID``.
    public static let OPTION_VISITOR_ID = "visitorID"
    /// `OPTION_HANDLE_SVC`: `"true"` makes the app present SFSafariViewController itself (`navigateToUrl:useSVC:`).
    public static let OPTION_HANDLE_SVC = "handleSVC"
    /// The option replacing the client information the SDK computes (Base64 JSON; spec §5.7). No iOS constant names it.
    public static let OPTION_DEVICE_INFO = "device_info"

    /// The header carrying `OPTION_VISITOR_ID` on every request (REST v2's name, spec §1.2 and §5.5; how iOS 3.x puts
    /// it on the wire is undocumented). The backend records it with sign-ins and authorizations.
    public static let HEADER_VISITOR_ID = "AP-Visitor-Identifier"
    /// The visitor ID's name on Android and in browser clients (`ap_vi`, a parameter or an `ap_*` header; spec §1.2):
    /// the backend records it too.
    public static let PARAMETER_VISITOR_ID = "ap_vi"
}
