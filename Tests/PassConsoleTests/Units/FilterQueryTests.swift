import AccessEnabler
import Foundation
import PassHistory
import PassSimulator
import Testing
@testable import PassConsole

struct FilterQueryTests {
    @Test func keyTermsNegationsAndTextCombine() throws {
        let query = try FilterQuery(#"programmer:REF30 -mvpd:Dish event:callback status:4xx app:com.a.b "not authorized" timeout"#)
        #expect(query.filter.requestorID == "REF30")
        #expect(query.filter.excludedMvpdIDs == ["Dish"])
        #expect(query.filter.kinds == [.callback])
        #expect(query.filter.httpStatus == .clientError)
        #expect(query.filter.bundleID == "com.a.b")
        #expect(query.filter.text == "not authorized timeout")
    }

    @Test func relativeAndAbsoluteTimes() throws {
        let now = Date(timeIntervalSince1970: 1_000_000)
        #expect(try FilterQuery("since:-15m", now: now).filter.from == now.addingTimeInterval(-900))
        #expect(try FilterQuery("until:-2h", now: now).filter.until == now.addingTimeInterval(-7200))
        #expect(try FilterQuery("since:2026-11-23T14:00:00Z").filter.from == EntitlementEvent.Wire.parse("2026-11-23T14:00:00Z"))
    }

    @Test func mistakesAreExplained() {
        #expect(throws: FilterQuery.Invalid.self) { try FilterQuery("event:nope") }
        #expect(throws: FilterQuery.Invalid.self) { try FilterQuery("status:teapot") }
        #expect(throws: FilterQuery.Invalid.self) { try FilterQuery("session:not-a-uuid") }
        #expect(throws: FilterQuery.Invalid.self) { try FilterQuery("-status:4xx") }
        #expect(throws: FilterQuery.Invalid.self) { try FilterQuery("since:yesterday") }
        #expect(throws: FilterQuery.Invalid.self) { try FilterQuery("mvpd:") }
    }

    @Test func keysAnyCaseStatusCodesAndRanges() throws {
        let query = try FilterQuery("MVPD:dish Programmer:ref30 status:403")
        #expect(query.filter.mvpdID == "dish")
        #expect(query.filter.requestorID == "ref30")
        #expect(query.filter.httpStatusCodes == 403...403)
        #expect(try FilterQuery("status:400-499").filter.httpStatusCodes == 400...499)
        #expect(try FilterQuery("status:4XX").filter.httpStatus == .clientError)
        for bad in ["status:499-400", "status:1000", "status:-1", "status:4x", "status:400-"] {
            #expect(throws: FilterQuery.Invalid.self, "\(bad)") { try FilterQuery(bad) }
        }
    }

    @Test func anUnknownKeyIsRefusedWithTheKnownKeysAndTheNearest() {
        #expect(throws: FilterQuery.Invalid.self) { try FilterQuery("foo:bar") }
        do {
            _ = try FilterQuery("programer:REF30")
            Issue.record("a misspelt key was taken")
        } catch {
            #expect(error.message.contains("Did you mean 'programmer:'?"))
            #expect(error.detail?.contains("mvpd:") == true)
        }
        #expect(FilterQuery.nearestKey(to: "mvdp") == "mvpd")
        #expect(FilterQuery.nearestKey(to: "stat") == "status")
        #expect(FilterQuery.nearestKey(to: "kin") == "event")
        #expect(FilterQuery.nearestKey(to: "foo") == nil)
    }

    @Test func quotedTermsTimesAndURLsAreText() throws {
        #expect(try FilterQuery(#""foo:bar""#).filter.text == "foo:bar")
        #expect(try FilterQuery("12:30").filter.text == "12:30")
        #expect(try FilterQuery("http://127.0.0.1:8081/x").filter.text == "http://127.0.0.1:8081/x")
        #expect(try FilterQuery(#"mvpd:"Time Warner""#).filter.mvpdID == "Time Warner")
    }

    @Test func thePageKnowsTheSameKeysAsTheServer() throws {
        // Public/lib/filter.js flags unknown keys before the server refuses them: both must list the same keys.
        let source = try String(contentsOfFile: ConsoleFixture.publicPath + "/lib/filter.js", encoding: .utf8)
        let block = try #require(source.range(of: #"export const KEYS = \{[^}]*\}"#, options: .regularExpression).map { String(source[$0]) })
        let keys = block.matches(of: /(\w+):\s*'/).map { String($0.1) }
        #expect(keys == FilterQuery.keys)
        let aliases = try #require(source.range(of: #"const ALIASES = \{[^}]*\}"#, options: .regularExpression).map { String(source[$0]) })
        let pairs = Dictionary(uniqueKeysWithValues: aliases.matches(of: /(\w+):\s*'(\w+)'/).map { (String($0.1), String($0.2)) })
        #expect(pairs == FilterQuery.aliases)
    }

    @Test func emptyMatchesEverything() throws {
        #expect(try FilterQuery(nil).filter.isEmpty)
        #expect(try FilterQuery("   ").filter.isEmpty)
    }
}

struct FlowProgressTests {
    let app = AppIdentity(bundleID: "com.a.b", teamID: "T")
    func event(_ kind: EntitlementEvent.Kind, at seconds: Double = 0) -> EntitlementEvent {
        EntitlementEvent(sequence: 0, timestamp: Date(timeIntervalSince1970: seconds), sessionID: UUID(), deviceID: "d",
            app: app, requestorID: "REF30", mvpdID: nil, kind: kind)
    }

    @Test func callsDuringSetRequestorQueueAndTheLoginStepsLightInOrder() {
        var progress = FlowProgress()
        progress.apply(event(.apiCall(name: "setRequestor", arguments: ["requestorID": "REF30"]), at: 1))
        #expect(progress.current == "requestor")
        progress.apply(event(.apiCall(name: "getAuthorization", arguments: ["resource": "news"]), at: 2))
        #expect(progress.current == "queued")
        #expect(progress.queued == ["getAuthorization(news)"])
        progress.apply(event(.stateChanged(flow: "requestor", from: "configuring (1 queued)", to: "ready"), at: 3))
        #expect(progress.queued.isEmpty)
        progress.apply(event(.stateChanged(flow: "authentication", from: "idle", to: "pickingProvider"), at: 4))
        #expect(progress.current == "picker")
        #expect(progress.since == Date(timeIntervalSince1970: 4))
        progress.apply(event(.stateChanged(flow: "authentication", from: "pickingProvider", to: "awaitingLogin(Dish)"), at: 5))
        #expect(progress.current == "login")
        progress.apply(event(.apiCall(name: "handleExternalURL", arguments: ["url": "adobepass://ios.app"]), at: 6))
        #expect(progress.current == "handleExternalURL")
        progress.apply(event(.stateChanged(flow: "authentication", from: "awaitingLogin(Dish)", to: "fetchingToken(Dish)"), at: 7))
        #expect(progress.current == "token")
        progress.apply(event(.callback(callback: .setAuthenticationStatus(status: 1, errorCode: "")), at: 8))
        #expect(progress.current == "status")
        #expect(progress.detail == "Authenticated (status 1).")
    }

    @Test func aTVShowsItsCodeWhilePolling() {
        var progress = FlowProgress()
        progress.apply(event(.stateChanged(flow: "authentication", from: "pickingProvider", to: "polling(Dish, ABC123)")))
        #expect(progress.current == "login")
        #expect(progress.regcode == "ABC123")
    }
}

struct SessionDiagnosisTests {
    let session = HistorySession(id: UUID(), deviceID: "d", bundleID: "com.a.b", teamID: "T", platform: .iOS,
        requestorID: "REF30", firstSeen: Date(), lastSeen: Date(), eventCount: 0)
    func event(_ kind: EntitlementEvent.Kind, at seconds: Double = 0) -> EntitlementEvent {
        EntitlementEvent(sequence: 0, timestamp: Date(timeIntervalSince1970: seconds), sessionID: session.id, deviceID: "d",
            app: session.app, requestorID: "REF30", mvpdID: nil, kind: kind)
    }

    @Test func namesDeviceIDChangesDenialsAndNetworkFailuresApart() {
        let verdicts = SessionDiagnosis.diagnose(events: [
            event(.storageChanged(domain: "team T", change: "sanitizer removed 1 token(s): REF30/Dish")),
            event(.callback(callback: .tokenRequestFailed(resource: "movies", errorCode: "User Not Authorized Error", errorDescription: "0033: not in package"))),
            event(.callback(callback: .tokenRequestFailed(resource: "news", errorCode: "Generic Authorization Error", errorDescription: "timed out"))),
        ], session: session, now: Date(timeIntervalSince1970: 10))
        #expect(verdicts.map(\.id) == ["device_id_changed", "mvpd_denied", "network_failure"])
        #expect(verdicts[1].text.contains("0033: not in package"))
    }

    @Test func aLoginPageLeftOpenIsStuckAndASecondCompletionIsNamed() {
        let open = [event(.callback(callback: .navigateToUrl(url: "http://x/login", useSVC: nil)), at: 0)]
        #expect(SessionDiagnosis.diagnose(events: open, session: session, now: Date(timeIntervalSince1970: 60)).isEmpty)
        #expect(SessionDiagnosis.diagnose(events: open, session: session, now: Date(timeIntervalSince1970: 600)).map(\.id) == ["stuck_login"])
        let twice = open + [
            event(.apiCall(name: "handleExternalURL", arguments: [:]), at: 1),
            event(.apiCall(name: "handleExternalURL", arguments: [:]), at: 2),
        ]
        let verdicts = SessionDiagnosis.diagnose(events: twice, session: session, now: Date(timeIntervalSince1970: 600))
        #expect(verdicts.map(\.id) == ["completion_twice"])
        let again = open + [event(.apiCall(name: "getAuthentication", arguments: [:]), at: 3)]
        #expect(SessionDiagnosis.diagnose(events: again, session: session, now: Date(timeIntervalSince1970: 4)).map(\.id) == ["login_never_cancelled"])
    }
}

struct DeviceRelationTests {
    @Test func theTechNotesFourCombinations() {
        let a = AppIdentity(bundleID: "com.example.news.ios", teamID: "T1")
        #expect(DeviceReport.relation(a, AppIdentity(bundleID: "com.example.news.sports", teamID: "T1")).outcome == "sso")
        #expect(DeviceReport.relation(a, AppIdentity(bundleID: "com.example.other.app", teamID: "T1")).outcome == "sharedStorageReauth")
        #expect(DeviceReport.relation(a, AppIdentity(bundleID: "com.example.news.x", teamID: "T2")).outcome == "isolated")
        #expect(DeviceReport.relation(a, AppIdentity(bundleID: "com.example.news.tv", teamID: "T1", platform: .tvOS)).outcome == "isolated")
    }

    /// Issue #17 B.4: every row of the tech note, by the simulator's storage, device-ID and sanitizer rules.
    @Test func theTechNotesOtherRows() {
        let a = AppIdentity(bundleID: "com.example.news.ios", teamID: "T1")
        let otherPrefix = AppIdentity(bundleID: "com.other.app", teamID: "T1")
        let otherTeam = AppIdentity(bundleID: "org.acme.sports.ios", teamID: "T2")
        // AccessEnabler 1.7: each signs in once, both stay signed in; 1.8 (both or either): one wipes the other
        #expect(DeviceReport.relation(a, otherPrefix, releases: (.v1_7, .v1_7)).outcome == "sharedStorageSignInEach")
        #expect(DeviceReport.relation(a, otherPrefix, releases: (.v1_8, .v1_8)).outcome == "sharedStorageReauth")
        let mixed = DeviceReport.relation(a, otherPrefix, releases: (.v1_7, .v1_8))
        #expect(mixed.outcome == "sharedStorageReauth")
        #expect(mixed.reason.contains("com.other.app's sanitizer"), "\(mixed.reason)")
        // iOS 6 and earlier: one pasteboard and the MAC-based device ID, SSO between any apps
        var phone6 = DeviceReport.currentPhone
        phone6.osVersion = "6.1.4"
        let legacy = DeviceReport.relation(a, otherTeam, profile: phone6)
        #expect(legacy.outcome == "sso")
        #expect(legacy.reason.contains("whatever their team"))
        #expect(DeviceReport.relation(a, otherPrefix, profile: phone6).outcome == "sso")
        // The same pair on iOS 7
        var phone7 = phone6
        phone7.osVersion = "7.0"
        #expect(DeviceReport.relation(a, otherTeam, profile: phone7).outcome == "isolated")
    }

    @Test func appsOnTwoDevicesShareNothingAndTheReasonSaysWhy() {
        let a = AppIdentity(bundleID: "com.example.news.ios", teamID: "T1")
        let sameDevice = DeviceReport.relation(a, AppIdentity(bundleID: "com.example.news.sports", teamID: "T1"), devices: ("phone", "phone"))
        #expect(sameDevice.outcome == "sso")
        let twoDevices = DeviceReport.relation(a, AppIdentity(bundleID: "com.example.news.sports", teamID: "T1"), devices: ("phone", "ipad"))
        #expect(twoDevices.outcome == "isolated")
        #expect(twoDevices.reason.hasPrefix("On different devices (phone, ipad)"))
    }
}

struct ClearScopeTests {
    func storage() -> TokenStorage {
        var storage = TokenStorage()
        storage.storeAuthentication(requestor: "REF30", mvpd: "Dish", authnToken: "a", userMeta: nil)
        storage.storeAuthorization(requestor: "REF30", mvpd: "Dish", resource: "news", authzToken: "z")
        storage.storeAuthentication(requestor: "SPORTS1", mvpd: "Dish", authnToken: "b", userMeta: nil)
        return storage
    }

    @Test func eachScopeRemovesOnlyWhatItNames() {
        var one = storage()
        #expect(ClearScope(domain: "d", requestorID: "REF30", mvpdID: "Dish", resource: "news").apply(to: &one)
            == ["authorization token for news (REF30 / Dish)"])
        #expect(one.bucket(requestor: "REF30", mvpd: "Dish")?.authnToken == "a")
        var programmer = storage()
        _ = ClearScope(domain: "d", requestorID: "REF30").apply(to: &programmer)
        #expect(programmer.requestors["REF30"] == nil)
        #expect(programmer.bucket(requestor: "SPORTS1", mvpd: "Dish")?.authnToken == "b")
        var all = storage()
        #expect(ClearScope(domain: "d").apply(to: &all).count == 5)
        #expect(all.isEmpty)
    }
}

struct ExportFormatTests {
    @Test func csvQuotesAndDisarmsFormulas() {
        #expect(EventCSV.escape("plain") == "plain")
        #expect(EventCSV.escape("a,b") == "\"a,b\"")
        #expect(EventCSV.escape("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(EventCSV.escape("=HYPERLINK(1)") == "'=HYPERLINK(1)")
    }

    @Test func harHasOneEntryPerExchangeAndRoundTrips() throws {
        let app = AppIdentity(bundleID: "com.a.b", teamID: "T")
        let exchange = HTTPExchange(method: "POST", url: "http://127.0.0.1/adobe-services/1.0/sessionDevice",
            parameters: ["requestor_id": "REF30"], status: 200, responseBody: "<ok/>", failure: nil, durationMs: 12)
        let events = [
            EntitlementEvent(sequence: 0, timestamp: Date(), sessionID: UUID(), deviceID: "d", app: app, requestorID: "REF30",
                mvpdID: nil, kind: .httpExchange(exchange: exchange)),
            EntitlementEvent(sequence: 1, timestamp: Date(), sessionID: UUID(), deviceID: "d", app: app, requestorID: "REF30",
                mvpdID: nil, kind: .apiCall(name: "x", arguments: [:])),
        ]
        let har = HARDocument(events)
        #expect(har.log.entries.count == 1)
        #expect(har.log.entries[0].request.postData?.text == "requestor_id=REF30")
        #expect(har.log.entries[0].response.content.mimeType == "application/xml")
        let decoded = try JSONDecoder().decode(HARDocument.self, from: try JSONEncoder().encode(har))
        #expect(decoded == har)
    }
}
