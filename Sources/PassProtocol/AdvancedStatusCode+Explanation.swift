extension AdvancedStatusCode {
    /// What the code means, in plain words (after Adobe's error-reporting table, spec §3.3).
    public var explanation: String {
        switch self {
        case .N000: "The user is not authenticated."
        case .N001:
            "Passive authentication started in the background (Authentication per Requestor); start-up takes longer."
        case .N003: "The user chose \"Other TV Provider\" in the Apple picker; the regular picker follows."
        case .N004:
            "The user chose an Apple-picker provider this requestor does not support; the regular picker follows."
        case .N005: "The TV provider picker was cancelled."
        case .N010: "The user was authenticated under an authenticate-all degradation rule."
        case .N011: "The user was authenticated with TempPass."
        case .N111: "The TempPass period has expired."
        case .N130:
            "No authentication token on the session: cookies blocked, session expired, or calls out of order."
        case .N500: "Authentication failed with an internal error."
        case .Z010: "The user was authorized under a degradation rule."
        case .Z011: "The user was authorized with TempPass."
        case .Z100:
            "The TV provider denied access (no subscription, parental controls…), or authorization was throttled."
        case .Z110: "Access was denied after repeated denials from the TV provider."
        case .Z120: "Access was denied because the TV provider could not be reached properly."
        case .Z130: "The resource ID is invalid or malformed."
        case .Z169: "Access was denied by an authzNone degradation rule."
        case .Z500: "Authorization failed with an internal error."
        case .P100:
            "Preauthorization failed, usually because too many resources were asked at once, or it was throttled."
        case .CFG100: "The device's date, time or time zone is wrong."
        case .CFG400: "The requestor ID is invalid."
        case .CFG404: "The authentication servers could not be found (DNS, spoofing or network)."
        case .CFG410: "This AccessEnabler version is too old; update the app."
        case .CFG429: "setRequestor was throttled (HTTP 429); wait before retrying."
        case .CFG5xx: "The authentication servers reported an internal error."
        case .SEC403: "Security error: wrong domain or certificate, or a bad signature."
        case .SEC412: "The device ID changed: stored tokens were cleared and the user is no longer authenticated."
        case .SEC420: "HTTPS security error, likely a proxy or man-in-the-middle."
        case .R400: "The app is not registered: its software statement is invalid or revoked."
        case .R401: "The app could not obtain an access token."
        case .REG500: "The registration code could not be fetched."
        case .REGCODE: "A registration code was created; show it so the user can sign in on a second screen."
        case .internalError: "An internal error occurred."
        case .VSA203:
            "Logged out, but the user signed in through Apple SSO: they must also sign out in Settings > TV Provider."
        case .VSA403: "The user denied this app access to their TV Provider account."
        case .VSA404: "The user has not yet decided whether this app may access their TV Provider account."
        case .VSA503: "The TV Provider account metadata request failed; the regular flow is used instead."
        case .AAPL_ERROR: "Apple single sign-on failed; the details carry the Video Subscriber Account error."
        case .LS011: "Storage is volatile: tokens will not survive a restart."
        case .IS0: "Device individualization failed."
        case .IS2xx: "The individualization endpoint gave an unexpected success answer."
        case .IS4xx: "The individualization endpoint rejected the request."
        case .IS5xx: "The individualization endpoint reported a server error."
        }
    }
}
