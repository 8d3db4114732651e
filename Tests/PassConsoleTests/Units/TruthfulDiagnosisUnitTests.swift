import AccessEnabler
import Foundation
import PassHistory
import PassProtocol
import Testing

@testable import PassConsole

/// The pure parts of issue #15 item 2: a refusal's side and rule from the recorded exchange, a card's sign-in from
/// the storage by the SDK's rules, single sign-on predicted by running those rules.
struct TruthfulDiagnosisUnitTests {
    static let key = TokenSigningKey()
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let device = "device-1"

    static func exchange(status: Int?, code: String? = nil, body: String? = nil, failure: String? = nil) -> HTTPExchange
    {
        HTTPExchange(
            method: "POST", url: "http://127.0.0.1:1/adobe-services/1.0/authorizeDevice", parameters: [:],
            status: status,
            responseBody: body, failure: failure, durationMs: 1, errorCode: code)
    }

    static func token(
        issuedTo requestor: String, mvpd: String, expires: Date = now.addingTimeInterval(3600), device: String = device
    ) -> String {
        SignedToken.sign(
            AuthNToken(
                guid: "g", requestorID: requestor, expires: expires, mvpdID: mvpd,
                deviceFingerprint: DeviceFingerprint.make(deviceID: device)), with: key
        ).serialized
    }

    static func configuration(_ requestor: String, _ mvpds: [MVPDInfo]) -> RequestorConfiguration {
        RequestorConfiguration(
            device: "mobile", clientType: "ios", os: "iOS", requestorID: requestor, requestorName: requestor,
            mvpds: mvpds)
    }

    static func mvpd(_ id: String, perRequestor: Bool = false, passive: Bool = false) -> MVPDInfo {
        MVPDInfo(
            id: id, displayName: id, logoURL: "", passiveAuthnEnabled: passive, authPerAggregator: perRequestor,
            enablePlatformServices: false, requiresSVC: false, authenticationTTLSeconds: nil)
    }

    @Test func eachFailedExchangeNamesItsSideAndRule() {
        #expect(Refusal.of(Self.exchange(status: 200)) == nil)
        #expect(Refusal.of(Self.exchange(status: nil, failure: "timed out"))?.side == .network)
        #expect(Refusal.of(Self.exchange(status: 503))?.side == .network)
        let denial = Refusal.of(
            Self.exchange(status: 403, code: "user_not_authorized", body: "<error><details>0033: no</details></error>"))
        #expect(denial?.side == .mvpd)
        #expect(denial?.sentence == "MVPD decision “denied the resource” (user_not_authorized): “0033: no”")
        #expect(Refusal.of(Self.exchange(status: 429))?.rule == "throttled")
        let binding = Refusal.of(
            Self.exchange(
                status: 401, code: "token_requestor_mismatch",
                body: "<error><details>The token was issued to Programmer REF30, not to SPORTS1.</details></error>"))
        #expect(binding?.side == .backend)
        #expect(
            binding?.sentence == "Backend check “token issued to another Programmer” (token_requestor_mismatch): "
                + "The token was issued to Programmer REF30, not to SPORTS1.")
        // Every code the backend sends has a rule name
        for rejection: TokenRejection in [
            .malformed("x"), .badSignature, .expired("t"), .deviceMismatch,
            .wrongRequestor(token: "A", presented: "B"), .mvpdNotIntegrated(mvpd: "M", requestor: "R"), .sessionRevoked,
            .resourceMismatch(token: "a", presented: "b"), .unknownSession,
        ] {
            #expect(TokenRejection.rule(forCode: rejection.code) != nil, "\(rejection.code)")
        }
    }

    @Test func aFailureRecordedWithoutItsExchangeStillGetsTheSideItsCodeStandsFor() {
        #expect(
            SessionDiagnosis.recordedWithoutExchange(code: "User Not Authorized Error", description: nil)?.side == .mvpd
        )
        #expect(
            SessionDiagnosis.recordedWithoutExchange(code: "Generic Authorization Error", description: "timed out")?
                .side == .network)
        #expect(SessionDiagnosis.recordedWithoutExchange(code: "User Not Authenticated Error", description: nil) == nil)
    }

    /// Field problems #19/#20 cannot be produced by the console's demo apps (no platform TV provider): recorded events.
    @Test func appleSSOStatusesAreNamedByTheirCode() {
        let session = HistorySession(
            id: UUID(), deviceID: "d", bundleID: "com.a.b", teamID: "T", platform: .iOS,
            requestorID: "REF30", firstSeen: Self.now, lastSeen: Self.now, eventCount: 0)
        let event = EntitlementEvent(
            sequence: 1, timestamp: Self.now, sessionID: session.id, deviceID: "d", app: session.app,
            requestorID: "REF30", mvpdID: nil,
            kind: .callback(callback: .status(statusDictionary: ["errorId": "VSA203", "id": "VSA203", "level": "Info"])))
        // The SDK's key is errorId (the diagnosis read only "status"/"code" before, so it never fired on real events)
        let verdicts = SessionDiagnosis.diagnose(events: [event], session: session, now: Self.now)
        #expect(verdicts.map(\.id) == ["apple_sso_logout"])
        #expect(verdicts.first?.side == .platform)
        #expect(verdicts.first?.text.contains("VSA203") == true)
        // A permission status outside the dialog is still named by its code
        let denied = EntitlementEvent(
            sequence: 2, timestamp: Self.now, sessionID: session.id, deviceID: "d", app: session.app,
            requestorID: "REF30", mvpdID: nil,
            kind: .callback(callback: .status(statusDictionary: ["status": "VSA403"])))
        #expect(SessionDiagnosis.diagnose(events: [denied], session: session, now: Self.now).map(\.title) == [
            "Apple single sign-on: VSA403"
        ])
    }

    @Test func onlyASilentSignInAfterAnAppleSSOLogoutIsCalledSignedInAgain() {
        let session = HistorySession(
            id: UUID(), deviceID: "d", bundleID: "com.a.b", teamID: "T", platform: .iOS,
            requestorID: "REF30", firstSeen: Self.now, lastSeen: Self.now, eventCount: 0)
        func event(_ n: Int, _ callback: EntitlementCallback) -> EntitlementEvent {
            EntitlementEvent(
                sequence: n, timestamp: Self.now.addingTimeInterval(Double(n)), sessionID: session.id, deviceID: "d",
                app: session.app, requestorID: "REF30", mvpdID: "Spectrum", kind: .callback(callback: callback))
        }
        let logout = event(1, .status(statusDictionary: ["errorId": "VSA203"]))
        let silent = [logout, event(2, .presentTvProviderDialog), event(3, .setAuthenticationStatus(status: 1, errorCode: ""))]
        #expect(SessionDiagnosis.diagnose(events: silent, session: session, now: Self.now).map(\.id) == [
            "apple_sso_logout", "apple_sso_signed_in_again",
        ])
        // A provider picked in the dialog whose own login page then signs in is not "without asking"
        let withPage = [
            logout, event(2, .presentTvProviderDialog), event(3, .navigateToUrl(url: "http://x/login", useSVC: false)),
            event(4, .setAuthenticationStatus(status: 1, errorCode: "")),
        ]
        #expect(SessionDiagnosis.diagnose(events: withPage, session: session, now: Self.now).map(\.id) == ["apple_sso_logout"])
    }

    @Test func aLoginHandedBackAtAnotherSchemeIsNamedAsTheSDKsRule() {
        let session = HistorySession(
            id: UUID(), deviceID: "d", bundleID: "com.a.b", teamID: "T", platform: .iOS,
            requestorID: "REF30", firstSeen: Self.now, lastSeen: Self.now, eventCount: 0)
        let message = "handleExternalURL(adobepass://ios.app) refused: this flow ends at adbe.com.a.b://adobe.com, not at adobepass://."
        let event = EntitlementEvent(
            sequence: 1, timestamp: Self.now, sessionID: session.id, deviceID: "d", app: session.app,
            requestorID: "REF30", mvpdID: "Dish", kind: .error(code: "redirect_mismatch", message: message))
        let verdicts = SessionDiagnosis.diagnose(events: [event], session: session, now: Self.now)
        #expect(verdicts.map(\.id) == ["svc_wrong_scheme"])
        #expect(verdicts.first?.side == .sdk)
        #expect(verdicts.first?.text.contains("SDK rule “the login ends at its own redirect URL”") == true)
        #expect(verdicts.first?.text.contains("adbe.com.a.b://adobe.com") == true)
    }

    @Test func aLogoutInAnotherAppOfTheSameStorageIsNamedWithTheApp() {
        let session = HistorySession(
            id: UUID(), deviceID: "d", bundleID: "com.example.news.sports", teamID: "T", platform: .iOS,
            requestorID: "SPORTS1", firstSeen: Self.now, lastSeen: Self.now, eventCount: 0)
        let logout = EntitlementEvent(
            sequence: 9, timestamp: Self.now.addingTimeInterval(5), sessionID: UUID(), deviceID: "d",
            app: AppIdentity(bundleID: "com.example.news.ios", teamID: "T"), requestorID: "REF30", mvpdID: nil,
            kind: .storageChanged(domain: "team T", change: "logout: cleared every Programmer and MVPD"))
        let verdicts = SessionDiagnosis.diagnose(
            events: [], session: session, now: Self.now.addingTimeInterval(10), neighbours: [logout])
        #expect(verdicts.map(\.id) == ["logged_out_by_other_app"])
        #expect(verdicts.first?.side == .sdkStorage)
        #expect(verdicts.first?.title == "Logged out by com.example.news.ios")
    }

    @Test func theCardJudgesTheStorageByTheSDKsRulesAndTheBackendsBinding() {
        let ref30 = Self.configuration(
            "REF30", [Self.mvpd("Dish"), Self.mvpd("Cablevision", perRequestor: true, passive: true)])
        let sports = Self.configuration(
            "SPORTS1", [Self.mvpd("Dish"), Self.mvpd("Cablevision", perRequestor: true, passive: true)])
        var storage = TokenStorage()
        storage.storeAuthentication(
            requestor: "REF30", mvpd: "Dish", authnToken: Self.token(issuedTo: "REF30", mvpd: "Dish"), userMeta: nil)
        let news = SignInState.judge(
            storage: storage, requestorID: "REF30", configuration: ref30, deviceID: Self.device, now: Self.now,
            lastAnswer: nil)
        #expect(news.state == .signedIn)
        // The SDK would copy REF30's Dish token for SPORTS1, and the service accepts it: Dish signs in once for every
        // Programmer (no authentication per requestor, issue #17 B.0)
        let copied = SignInState.judge(
            storage: storage, requestorID: "SPORTS1", configuration: sports, deviceID: Self.device, now: Self.now,
            lastAnswer: true)
        #expect(copied.state == .signedIn, "\(copied.text)")
        #expect(copied.text.contains("copies for SPORTS1 by silent single sign-on"))
        // A copy already in SPORTS1's bucket when Dish switched to authentication per requestor: the SDK still counts
        // it (until its next setRequestor), the service refuses it
        var held = storage
        #expect(held.copySSOToken(SSOContext(requestorID: "SPORTS1", allowedMvpds: ["Dish"], now: Self.now, deviceID: Self.device)) != nil)
        let switched = Self.configuration(
            "SPORTS1", [Self.mvpd("Dish", perRequestor: true), Self.mvpd("Cablevision", perRequestor: true, passive: true)])
        let refused = SignInState.judge(
            storage: held, requestorID: "SPORTS1", configuration: switched, deviceID: Self.device, now: Self.now,
            lastAnswer: true)
        #expect(refused.state == .deviceOnly)
        #expect(refused.text.contains("token issued to another Programmer"))
        // Past its TTL it does not count, and the app that was told 1 is stale
        let later = Self.now.addingTimeInterval(7200)
        let expired = SignInState.judge(
            storage: storage, requestorID: "REF30", configuration: ref30, deviceID: Self.device, now: later,
            lastAnswer: true)
        #expect(expired.state == .signedOut)
        #expect(expired.text.contains("SDK storage rule “TTL expired”"))
        #expect(expired.stale != nil)
        // Bound to another device ID
        let other = SignInState.judge(
            storage: storage, requestorID: "REF30", configuration: ref30, deviceID: "device-2", now: Self.now,
            lastAnswer: nil)
        #expect(other.text.contains("SDK storage rule “device ID mismatch”"))
        #expect(
            SignInState.judge(
                storage: TokenStorage(), requestorID: "REF30", configuration: ref30, deviceID: Self.device,
                now: Self.now,
                lastAnswer: nil
            ).state == .signedOut)
    }

    @Test func singleSignOnIsPredictedByRunningTheSDKsStorageRules() {
        let first = Self.configuration(
            "A",
            [
                Self.mvpd("Plain"), Self.mvpd("PerRequestor", perRequestor: true),
                Self.mvpd("Passive", perRequestor: true, passive: true), Self.mvpd("OnlyA"),
            ])
        let second = Self.configuration(
            "B",
            [
                Self.mvpd("Plain"), Self.mvpd("PerRequestor", perRequestor: true),
                Self.mvpd("Passive", perRequestor: true, passive: true),
            ])
        let paths = SSOPrediction.paths(from: first, to: second, deviceID: Self.device, now: Self.now)
        #expect(paths.map(\.mvpd) == ["Plain", "PerRequestor", "Passive"])
        // Plain: the SDK copies the token and the backend accepts it (RequestorBinding, issue #17 B.0)
        #expect(paths.map(\.outcome) == ["sso", "signInAgain", "passive"])
        #expect(paths[0].side == nil)
        #expect(paths[1].side == .sdkStorage)
    }
}
