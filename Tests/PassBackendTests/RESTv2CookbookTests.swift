import Foundation
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// REST API v2 as the vendor's client-server cookbook drives it (docs/rest-api-v2.md §5.0): a client registered
/// through DCR (§7) runs the documented flows against the backend over real HTTP, and each answer is checked against
/// the documented shape (§3), the error format (§4) and the headers' rules (§2).
///
/// Demo data (Config/demo.json): REF30 integrates Cablevision, Spectrum and Dish (not Rogers); carol (Dish) is
/// entitled to everything, dave (Dish) to `kids` only; Dish's authN TTL is 604800 s.
@Suite struct RESTv2CookbookTests {
    static let redirectUrl = "https://adobe.com/signed-in"
    static let domain = "adobe.com"
    static let dishAuthnTTL: Int64 = 604_800

    // MARK: Registration and configuration

    @Test func dynamicClientRegistrationGivesCredentialsThenABearerToken() async throws {
        try await BackendFixture.with { _, client async throws in
            let body = try JSONSerialization.data(withJSONObject: ["software_statement": "demo-software-statement"])
            let registered = try await client.post(
                "/o/client/register", json: body, headers: ["X-Device-Info": V2Client.tvDeviceInfo])
            #expect(registered.status == 201, "register (§7.1 answers 201): \(registered.text)")
            let clientID = try #require(registered.json["client_id"] as? String, "\(registered.text)")
            let secret = try #require(registered.json["client_secret"] as? String, "\(registered.text)")
            #expect(registered.json["grant_types"] as? [String] == ["client_credentials"], "\(registered.text)")
            #expect((registered.json["scopes"] as? [String] ?? []).contains("api:client:v2"), "\(registered.text)")

            let token = try await client.post(
                "/o/client/token",
                form: [("grant_type", "client_credentials"), ("client_id", clientID), ("client_secret", secret)],
                headers: ["X-Device-Info": V2Client.tvDeviceInfo])
            #expect(token.status == 201, "token (§7.2 answers 201): \(token.text)")
            let access = try #require(token.json["access_token"] as? String, "\(token.text)")
            #expect((token.json["token_type"] as? String)?.lowercased() == "bearer", "\(token.text)")
            #expect(
                Self.millisNumber(token.json["expires_in"]) ?? 0 > 0, "expires_in is a number of seconds: \(token.text)"
            )

            let tv = V2Client(http: client, bearer: access, device: "tv-dcr")
            let configuration = try await tv.get("/api/v2/REF30/configuration")
            #expect(configuration.status == 200, "the bearer opens REST API v2: \(configuration.text)")
        }
    }

    @Test func configurationNestsDomainsAndMVPDsInsideTheRequestor() async throws {
        try await BackendFixture.with { _, client async throws in
            let tv = try await tvApp(client)
            let answer = try await tv.get("/api/v2/REF30/configuration")
            #expect(answer.status == 200, "\(answer.text)")
            #expect(answer.header("Content-Type")?.contains("application/json") == true, "\(answer.headers)")
            for key in ["device", "clientType", "os"] {
                #expect(answer.json[key] as? String != nil, "\(key) is a string (§3.1 sample): \(answer.text)")
            }
            let requestor = try #require(answer.json["requestor"] as? [String: Any], "\(answer.text)")
            #expect(requestor["id"] as? String == "REF30", "\(answer.text)")
            #expect(requestor["name"] as? String == "Reference Network", "\(answer.text)")
            let domains = try #require(
                requestor["domains"] as? [[String: Any]], "domains is a list of objects: \(answer.text)")
            #expect(
                Set(domains.compactMap { $0["name"] as? String }) == ["adobe.com", "reference.example"],
                "\(answer.text)")
            #expect(
                domains.allSatisfy { $0["mvpdInitiated"] as? Bool != nil },
                "each domain has mvpdInitiated: \(answer.text)")

            let mvpds = try #require(
                requestor["mvpds"] as? [[String: Any]], "mvpds sit inside requestor (§3.1 sample): \(answer.text)")
            #expect(
                Set(mvpds.filter { $0["isTempPass"] as? Bool != true }.compactMap { $0["id"] as? String }) == ["Cablevision", "Spectrum", "Dish"],
                "\(answer.text)")
            for mvpd in mvpds {
                #expect(!(mvpd["displayName"] as? String ?? "").isEmpty, "displayName: \(mvpd)")
                #expect(!(mvpd["logoUrl"] as? String ?? "").isEmpty, "logoUrl (spelled so in §3.1): \(mvpd)")
            }
            #expect(
                mvpds.first(where: { $0["id"] as? String == "Dish" })?["displayName"] as? String == "DISH",
                "\(answer.text)")

            // Another service provider's app sees that provider's integrations.
            let sportsBearer = try await Self.register(client, statement: "sports1-software-statement")
            let sports = V2Client(http: client, bearer: sportsBearer, device: "tv-sports")
            let other = try await sports.get("/api/v2/SPORTS1/configuration")
            #expect(other.status == 200, "\(other.text)")
            let otherRequestor = other.json["requestor"] as? [String: Any]
            #expect(otherRequestor?["id"] as? String == "SPORTS1", "\(other.text)")
            let otherMVPDs = otherRequestor?["mvpds"] as? [[String: Any]] ?? []
            #expect(Set(otherMVPDs.filter { $0["isTempPass"] as? Bool != true }.compactMap { $0["id"] as? String }) == ["Cablevision", "Dish"],
                "\(other.text)")
        }
    }

    // MARK: Authentication

    @Test func profilesAreAnEmptyMapBeforeSignIn() async throws {
        try await BackendFixture.with { service, client async throws in
            let tv = try await tvApp(client)
            let all = try await tv.get("/api/v2/REF30/profiles")
            checkProfiles(all, [], now: Self.millis(service.now()), "GET profiles before sign-in")
            let dish = try await tv.get("/api/v2/REF30/profiles/Dish")
            checkProfiles(dish, [], now: Self.millis(service.now()), "GET profiles/Dish before sign-in")
        }
    }

    @Test func primaryApplicationSignsInThroughTheBrowserAndGetsARegularProfile() async throws {
        try await BackendFixture.with { service, client async throws in
            let device = "ba23d141-d715-561c-94f4-e9e4c966b1eb"
            #expect(
                V2Client.fingerprint(device) == "fingerprint YmEyM2QxNDEtZDcxNS01NjFjLTk0ZjQtZTllNGM5NjZiMWVi",
                "the header is built as in the §2.3 example")
            let tv = try await tvApp(client, device: device)

            // B.3: create the session with every parameter (§3.2 Sample 1).
            let created = try await tv.post("/api/v2/REF30/sessions", form: sessionForm(mvpd: "Dish"))
            let code = try checkAuthenticateAction(
                created, mvpd: "Dish", now: Self.millis(service.now()), "create session")

            // The code's session, as the API lists it: Authorization only (§3.4).
            let session = try await tv.withoutDevice.get("/api/v2/REF30/sessions/\(code)")
            #expect(session.status == 200, "GET sessions/{code}: \(session.text)")
            let existing = try #require(session.json["existingParameters"] as? [String: Any], "\(session.text)")
            #expect(existing["mvpd"] as? String == "Dish", "\(session.text)")
            #expect(existing["redirectUrl"] as? String == Self.redirectUrl, "\(session.text)")
            #expect(existing["serviceProvider"] as? String == "REF30", "\(session.text)")
            #expect(
                (existing["domainName"] ?? existing["domain"]) as? String == Self.domain,
                "the samples name it domainName or domain: \(session.text)")
            #expect(
                (session.json["missingParameters"] as? [String] ?? []).isEmpty, "nothing is missing: \(session.text)")
            #expect(session.json["device"] as? [String: Any] != nil, "device is an object (§3.4): \(session.text)")
            #expect(session.json["notBefore"] as? String == created.json["notBefore"] as? String, "\(session.text)")
            #expect(session.json["notAfter"] as? String == created.json["notAfter"] as? String, "\(session.text)")

            // B.4: polling by code before the user is done finds nothing.
            let pending = try await tv.withoutDevice.get("/api/v2/REF30/profiles/code/\(code)")
            #expect(pending.status == 200, "poll before sign-in: \(pending.text)")
            #expect((pending.json["profiles"] as? [String: Any] ?? [:]).isEmpty, "poll before sign-in: \(pending.text)")

            // B.3 scenario 1: the app opens the session's url in a browser.
            let url = try #require(created.json["url"] as? String)
            let end = try await V2Browser(client: client).signIn(url, username: "carol", password: "carol123")
            #expect(
                end?.hasPrefix(Self.redirectUrl) == true, "the browser ends at the redirectUrl, not \(end ?? "a page")")

            let now = Self.millis(service.now())
            let byCode = try await tv.withoutDevice.get("/api/v2/REF30/profiles/code/\(code)")
            checkProfiles(
                byCode, ["Dish"], ttl: Self.dishAuthnTTL, now: now, "GET profiles/code/{code} (no device headers)")
            let all = try await tv.get("/api/v2/REF30/profiles")
            checkProfiles(all, ["Dish"], ttl: Self.dishAuthnTTL, now: now, "GET profiles")
            let dish = try await tv.get("/api/v2/REF30/profiles/Dish")
            checkProfiles(dish, ["Dish"], ttl: Self.dishAuthnTTL, now: now, "GET profiles/Dish")
            let cablevision = try await tv.get("/api/v2/REF30/profiles/Cablevision")
            checkProfiles(cablevision, [], now: now, "GET profiles/Cablevision (signed in with Dish only)")
            let profile = (all.json["profiles"] as? [String: Any])?["Dish"] as? [String: Any]
            let attributes = profile?["attributes"] as? [String: Any] ?? [:]
            #expect(
                attributes["householdID"] != nil, "carol's metadata (householdID) is among the attributes: \(all.text)")

            // A new session now finds the profile: go straight to decisions (§3.2 Sample 3).
            let again = try await tv.post("/api/v2/REF30/sessions", form: sessionForm(mvpd: "Dish"))
            #expect(again.status == 200, "\(again.text)")
            #expect(again.json["actionName"] as? String == "authorize", "\(again.text)")
            #expect(again.json["actionType"] as? String == "direct", "\(again.text)")
            #expect(again.json["reasonType"] as? String == "authenticated", "\(again.text)")
            #expect(again.json["url"] as? String == "/api/v2/REF30/decisions/authorize/Dish", "\(again.text)")
            #expect(again.json["mvpd"] as? String == "Dish", "\(again.text)")
            #expect(again.json["serviceProvider"] as? String == "REF30", "\(again.text)")
            #expect(!(again.json["sessionId"] as? String ?? "").isEmpty, "\(again.text)")
            #expect(again.json["code"] == nil, "no code when no authentication is needed: \(again.text)")
        }
    }

    @Test func secondScreenResumesTheTVSessionByCodeAndTheTVFindsTheProfile() async throws {
        try await BackendFixture.with { service, client async throws in
            let tv = try await tvApp(client)

            // §5.3 (b): the TV cannot take the parameters (§3.2 Sample 2, empty body): resume, with a code to show.
            let created = try await tv.post("/api/v2/REF30/sessions", form: [])
            #expect(created.status == 200, "create session without parameters: \(created.text)")
            #expect(created.json["actionName"] as? String == "resume", "\(created.text)")
            #expect(created.json["actionType"] as? String == "direct", "\(created.text)")
            #expect(created.json["reasonType"] as? String == "none", "\(created.text)")
            let code = try #require(created.json["code"] as? String, "a code to show: \(created.text)")
            #expect(created.json["url"] as? String == "/api/v2/REF30/sessions/\(code)", "\(created.text)")
            #expect(created.json["mvpd"] == nil, "\(created.text)")
            #expect(!(created.json["sessionId"] as? String ?? "").isEmpty, "\(created.text)")
            #expect(created.json["serviceProvider"] as? String == "REF30", "\(created.text)")
            let missing = Set(created.json["missingParameters"] as? [String] ?? [])
            #expect(
                missing.count == 3 && missing.contains("mvpd") && missing.contains("redirectUrl")
                    && (missing.contains("domainName") || missing.contains("domain")),
                "mvpd, domain(Name), redirectUrl are missing: \(created.text)")
            checkCodeWindow(created.json, now: Self.millis(service.now()), "create session: \(created.text)")

            // The TV polls right after showing the code (cookbook step 4): nothing yet.
            let pending = try await tv.withoutDevice.get("/api/v2/REF30/profiles/code/\(code)")
            #expect(pending.status == 200, "\(pending.text)")
            #expect((pending.json["profiles"] as? [String: Any] ?? [:]).isEmpty, "\(pending.text)")

            // The second screen: an app of its own (own registration, own device) validates the code...
            let phoneBearer = try await Self.register(client)
            let phone = V2Client(
                http: client, bearer: phoneBearer, device: "phone-\(UUID().uuidString)",
                deviceInfo: V2Client.phoneDeviceInfo)
            let check = try await phone.get("/api/v2/REF30/sessions/\(code)")
            #expect(check.status == 200, "GET sessions/{code} from the second screen: \(check.text)")
            #expect((check.json["missingParameters"] as? [String] ?? []).contains("mvpd"), "\(check.text)")
            #expect(
                (check.json["existingParameters"] as? [String: Any])?["serviceProvider"] as? String == "REF30",
                "\(check.text)")

            // ...provides the missing parameters...
            let resumed = try await phone.post("/api/v2/REF30/sessions/\(code)", form: sessionForm(mvpd: "Dish"))
            _ = try checkAuthenticateAction(
                resumed, mvpd: "Dish", code: code, now: Self.millis(service.now()), "resume session")

            // ...and opens the self-computed url in its browser.
            let end = try await V2Browser(client: client).signIn(
                "/api/v2/authenticate/REF30/\(code)", username: "carol", password: "carol123")
            #expect(
                end?.hasPrefix(Self.redirectUrl) == true, "the browser ends at the redirectUrl, not \(end ?? "a page")")

            // The TV's poll finds the profile; its own profiles list has it; it can play.
            let now = Self.millis(service.now())
            let polled = try await tv.withoutDevice.get("/api/v2/REF30/profiles/code/\(code)")
            checkProfiles(polled, ["Dish"], ttl: Self.dishAuthnTTL, now: now, "TV polls profiles/code/{code}")
            let profiles = try await tv.get("/api/v2/REF30/profiles")
            checkProfiles(profiles, ["Dish"], ttl: Self.dishAuthnTTL, now: now, "TV GET profiles")
            let authorized = try await tv.decisions("authorize", mvpd: "Dish", resources: ["news"])
            if let decision = findDecision(authorized, "news", "TV authorize news") {
                checkPermit(decision, mvpd: "Dish", mediaToken: true, "TV authorize news: \(authorized.text)")
            }

            // The session kept the TV's identity: the profile is not the second screen's.
            let phoneProfiles = try await phone.get("/api/v2/REF30/profiles")
            checkProfiles(phoneProfiles, [], now: now, "the second screen's own profiles")
        }
    }

    @Test func createWithoutMVPDGivesACodeAndResumeWithTheMVPDCompletesIt() async throws {
        try await BackendFixture.with { service, client async throws in
            let tv = try await tvApp(client)
            let created = try await tv.post(
                "/api/v2/REF30/sessions", form: [("domainName", Self.domain), ("redirectUrl", Self.redirectUrl)])
            #expect(created.status == 200, "\(created.text)")
            #expect(created.json["actionName"] as? String == "resume", "\(created.text)")
            #expect(created.json["actionType"] as? String == "direct", "\(created.text)")
            let code = try #require(
                created.json["code"] as? String, "without mvpd there is still a code: \(created.text)")
            #expect(created.json["url"] as? String == "/api/v2/REF30/sessions/\(code)", "\(created.text)")
            #expect(created.json["missingParameters"] as? [String] == ["mvpd"], "\(created.text)")
            #expect(created.json["mvpd"] == nil, "\(created.text)")
            checkCodeWindow(created.json, now: Self.millis(service.now()), "create session: \(created.text)")

            let session = try await tv.withoutDevice.get("/api/v2/REF30/sessions/\(code)")
            #expect(session.status == 200, "\(session.text)")
            #expect(session.json["missingParameters"] as? [String] == ["mvpd"], "\(session.text)")
            let existing = session.json["existingParameters"] as? [String: Any] ?? [:]
            #expect(existing["redirectUrl"] as? String == Self.redirectUrl, "\(session.text)")
            #expect((existing["domainName"] ?? existing["domain"]) as? String == Self.domain, "\(session.text)")
            #expect(existing["mvpd"] == nil, "\(session.text)")

            // The session already holds domainName and redirectUrl: the mvpd completes it.
            let resumed = try await tv.withoutDevice.post("/api/v2/REF30/sessions/\(code)", form: [("mvpd", "Dish")])
            _ = try checkAuthenticateAction(
                resumed, mvpd: "Dish", code: code, now: Self.millis(service.now()), "resume with mvpd")

            let after = try await tv.withoutDevice.get("/api/v2/REF30/sessions/\(code)")
            #expect((after.json["existingParameters"] as? [String: Any])?["mvpd"] as? String == "Dish", "\(after.text)")
            #expect((after.json["missingParameters"] as? [String] ?? []).isEmpty, "\(after.text)")
        }
    }

    @Test func resumeStillMissingTheRedirectUrlAnswersRetry() async throws {
        try await BackendFixture.with { service, client async throws in
            let tv = try await tvApp(client)
            let created = try await tv.post("/api/v2/REF30/sessions", form: [])
            let code = try #require(created.json["code"] as? String, "\(created.text)")

            // §3.3 Sample 2.
            let resumed = try await tv.withoutDevice.post(
                "/api/v2/REF30/sessions/\(code)", form: [("mvpd", "Dish"), ("domainName", Self.domain)])
            #expect(resumed.status == 200, "\(resumed.text)")
            #expect(resumed.json["actionName"] as? String == "retry", "\(resumed.text)")
            #expect(resumed.json["actionType"] as? String == "direct", "\(resumed.text)")
            #expect(resumed.json["reasonType"] as? String == "none", "\(resumed.text)")
            #expect(resumed.json["url"] as? String == "/api/v2/REF30/sessions/\(code)", "\(resumed.text)")
            #expect(resumed.json["missingParameters"] as? [String] == ["redirectUrl"], "\(resumed.text)")
            #expect(resumed.json["code"] as? String == code, "the path's code is echoed: \(resumed.text)")
            #expect(resumed.json["mvpd"] as? String == "Dish", "\(resumed.text)")
            #expect(resumed.json["serviceProvider"] as? String == "REF30", "\(resumed.text)")
            #expect(!(resumed.json["sessionId"] as? String ?? "").isEmpty, "\(resumed.text)")
            checkCodeWindow(resumed.json, now: Self.millis(service.now()), "retry: \(resumed.text)")
        }
    }

    @Test func profilesBelongToTheDeviceAndTheClientThatSignedIn() async throws {
        try await BackendFixture.with { service, client async throws in
            let device = "tv-\(UUID().uuidString)"
            let tv = try await tvApp(client, device: device)
            try await signIn(tv, username: "carol", password: "carol123")
            let now = Self.millis(service.now())
            let own = try await tv.get("/api/v2/REF30/profiles")
            checkProfiles(own, ["Dish"], ttl: Self.dishAuthnTTL, now: now, "the signing device and client")

            var otherDevice = tv
            otherDevice.deviceIdentifier = V2Client.fingerprint("other-\(device)")
            let elsewhere = try await otherDevice.get("/api/v2/REF30/profiles")
            checkProfiles(elsewhere, [], now: now, "same client, another AP-Device-Identifier (FAQ §8.1)")
            let denied = try await otherDevice.decisions("authorize", mvpd: "Dish", resources: ["news"])
            expectProfileMissing(denied, resource: "news", "authorize from another device")

            let reinstalled = try await tvApp(client, device: device)
            let fresh = try await reinstalled.get("/api/v2/REF30/profiles")
            checkProfiles(fresh, [], now: now, "same device, new client credentials (FAQ §8.1, DCR FAQ §7.3)")
        }
    }

    // MARK: Decisions and logout

    @Test func authorizeGivesAMediaTokenThePlaybackServerAcceptsAndPreauthorizeNone() async throws {
        try await BackendFixture.with { _, client async throws in
            let tv = try await tvApp(client)
            try await signIn(tv, username: "carol", password: "carol123")

            let preauthorized = try await tv.decisions("preauthorize", mvpd: "Dish", resources: ["news", "sports"])
            #expect((preauthorized.json["decisions"] as? [[String: Any]])?.count == 2, "\(preauthorized.text)")
            for resource in ["news", "sports"] {
                if let decision = findDecision(preauthorized, resource, "preauthorize") {
                    checkPermit(
                        decision, mvpd: "Dish", mediaToken: false, "preauthorize \(resource): \(preauthorized.text)")
                }
            }

            let authorized = try await tv.decisions("authorize", mvpd: "Dish", resources: ["news"])
            #expect((authorized.json["decisions"] as? [[String: Any]])?.count == 1, "\(authorized.text)")
            let permit = try #require(findDecision(authorized, "news", "authorize"))
            checkPermit(permit, mvpd: "Dish", mediaToken: true, "authorize news: \(authorized.text)")

            // The serialized token is the signed short media token: the verifier takes it, once.
            let serialized = try #require((permit["token"] as? [String: Any])?["serializedToken"] as? String)
            let verdict = try await client.post("/verify", form: [("token", serialized), ("resource", "news")])
            #expect(verdict.status == 200, "/verify: \(verdict.text)")
            #expect(verdict.json["verdict"] as? String == "VALID_TOKEN", "/verify: \(verdict.text)")
        }
    }

    @Test func unentitledResourceIsDeniedInsideTheDecisionWithHTTP200() async throws {
        try await BackendFixture.with { _, client async throws in
            let tv = try await tvApp(client)
            try await signIn(tv, username: "dave", password: "dave123")

            let kids = try await tv.decisions("authorize", mvpd: "Dish", resources: ["kids"])
            if let decision = findDecision(kids, "kids", "authorize kids") {
                checkPermit(decision, mvpd: "Dish", mediaToken: true, "dave may watch kids: \(kids.text)")
            }
            let news = try await tv.decisions("authorize", mvpd: "Dish", resources: ["news"])
            if let decision = findDecision(news, "news", "authorize news") {
                checkDeny(
                    decision, mvpd: "Dish", code: "authorization_denied_by_mvpd",
                    "dave may not watch news: \(news.text)")
            }

            let preauthorized = try await tv.decisions("preauthorize", mvpd: "Dish", resources: ["kids", "news"])
            if let decision = findDecision(preauthorized, "kids", "preauthorize") {
                checkPermit(decision, mvpd: "Dish", mediaToken: false, "preauthorize kids: \(preauthorized.text)")
            }
            if let decision = findDecision(preauthorized, "news", "preauthorize") {
                checkDeny(
                    decision, mvpd: "Dish", code: "preauthorization_denied_by_mvpd",
                    "preauthorize news: \(preauthorized.text)")
            }
        }
    }

    @Test func decisionsWithoutAProfileAnswerAuthenticatedProfileMissing() async throws {
        try await BackendFixture.with { _, client async throws in
            let tv = try await tvApp(client)
            let authorize = try await tv.decisions("authorize", mvpd: "Dish", resources: ["news"])
            expectProfileMissing(authorize, resource: "news", "authorize before sign-in")
            let preauthorize = try await tv.decisions("preauthorize", mvpd: "Dish", resources: ["news"])
            expectProfileMissing(preauthorize, resource: "news", "preauthorize before sign-in")
        }
    }

    @Test func logoutDeletesTheProfileAndSaysWhatToDoNext() async throws {
        try await BackendFixture.with { service, client async throws in
            let tv = try await tvApp(client)
            let logoutPath = "/api/v2/REF30/logout/Dish?redirectUrl=\(TestHTTPClient.escape(Self.redirectUrl))"

            let early = try await tv.get(logoutPath)
            checkLogout(early, hadProfile: false, "logout before sign-in")

            try await signIn(tv, username: "carol", password: "carol123")
            let logout = try await tv.get(logoutPath)
            checkLogout(logout, hadProfile: true, "logout after sign-in")

            let profiles = try await tv.get("/api/v2/REF30/profiles")
            checkProfiles(profiles, [], now: Self.millis(service.now()), "profiles after logout")
            let dish = try await tv.get("/api/v2/REF30/profiles/Dish")
            checkProfiles(dish, [], now: Self.millis(service.now()), "profiles/Dish after logout")
            let authorize = try await tv.decisions("authorize", mvpd: "Dish", resources: ["news"])
            expectProfileMissing(authorize, resource: "news", "authorize after logout")

            let again = try await tv.get(logoutPath)
            checkLogout(again, hadProfile: false, "logout a second time")
        }
    }

    // MARK: Errors

    @Test func missingOrMalformedDeviceIdentifierIsInvalidHeaderDeviceIdentifier() async throws {
        try await BackendFixture.with { _, client async throws in
            var tv = try await tvApp(client)
            tv.deviceIdentifier = nil
            let codes: Set<String> = ["invalid_header_device_identifier"]
            let profiles = try await tv.get("/api/v2/REF30/profiles")
            expectError(profiles, status: 400, codes: codes, "GET profiles without AP-Device-Identifier")
            let profile = try await tv.get("/api/v2/REF30/profiles/Dish")
            expectError(profile, status: 400, codes: codes, "GET profiles/Dish without AP-Device-Identifier")
            let session = try await tv.post("/api/v2/REF30/sessions", form: sessionForm(mvpd: "Dish"))
            expectError(session, status: 400, codes: codes, "POST sessions without AP-Device-Identifier")
            let authorize = try await tv.decisions("authorize", mvpd: "Dish", resources: ["news"])
            expectError(authorize, status: 400, codes: codes, "authorize without AP-Device-Identifier")
            let preauthorize = try await tv.decisions("preauthorize", mvpd: "Dish", resources: ["news"])
            expectError(preauthorize, status: 400, codes: codes, "preauthorize without AP-Device-Identifier")
            let logout = try await tv.get(
                "/api/v2/REF30/logout/Dish?redirectUrl=\(TestHTTPClient.escape(Self.redirectUrl))")
            expectError(logout, status: 400, codes: codes, "logout without AP-Device-Identifier")

            let base64 = Data("tv-malformed".utf8).base64EncodedString()
            for value in ["uuid \(base64)", base64, "fingerprint", "fingerprint not*base64!"] {
                tv.deviceIdentifier = value
                let answer = try await tv.get("/api/v2/REF30/profiles")
                expectError(answer, status: 400, codes: codes, "AP-Device-Identifier: \(value)")
            }
        }
    }

    @Test func deviceInfoMayBeOmittedOrImperfectButNotOutsideBase64() async throws {
        try await BackendFixture.with { _, client async throws in
            var tv = try await tvApp(client)
            tv.deviceInfo = "not base64!*"
            let profiles = try await tv.get("/api/v2/REF30/profiles")
            expectError(profiles, status: 400, codes: ["invalid_header_device_info"], "X-Device-Info not Base64")
            let session = try await tv.post("/api/v2/REF30/sessions", form: sessionForm(mvpd: "Dish"))
            expectError(
                session, status: 400, codes: ["invalid_header_device_info"], "POST sessions, X-Device-Info not Base64")

            // The docs' own sample value decodes to JSON with a missing comma (§2.4): it must still be taken.
            tv.deviceInfo = V2Client.docsSampleDeviceInfo
            let sample = try await tv.get("/api/v2/REF30/profiles")
            #expect(sample.status == 200, "the §3 samples' X-Device-Info: \(sample.text)")
            // Absent, the backend uses what it can infer (§2.4).
            tv.deviceInfo = nil
            let absent = try await tv.get("/api/v2/REF30/profiles")
            #expect(absent.status == 200, "without X-Device-Info: \(absent.text)")
            let configuration = try await tv.get("/api/v2/REF30/configuration")
            #expect(configuration.status == 200, "configuration without X-Device-Info: \(configuration.text)")
        }
    }

    @Test func missingUnknownOrExpiredBearerIs401() async throws {
        try await BackendFixture.with { service, client async throws in
            let issued = try await Self.token(client)
            let access = try #require(issued.json["access_token"] as? String, "\(issued.text)")
            let tv = V2Client(http: client, bearer: access, device: "tv-bearer")
            for authorization in [nil, "Bearer not-a-token", "Basic ZGVtbzpkZW1v", "Bearer"] as [String?] {
                var app = tv
                app.authorization = authorization
                let profiles = try await app.get("/api/v2/REF30/profiles")
                expectError(profiles, status: 401, codes: [], "GET profiles, Authorization: \(authorization ?? "none")")
                let session = try await app.post("/api/v2/REF30/sessions", form: sessionForm(mvpd: "Dish"))
                expectError(session, status: 401, codes: [], "POST sessions, Authorization: \(authorization ?? "none")")
            }
            let before = try await tv.get("/api/v2/REF30/profiles")
            #expect(before.status == 200, "the real bearer works: \(before.text)")
            let lifetime = try #require(Self.millisNumber(issued.json["expires_in"]), "\(issued.text)")
            service.clock.advance(by: TimeInterval(lifetime + 1))
            let expired = try await tv.get("/api/v2/REF30/profiles")
            expectError(expired, status: 401, codes: [], "GET profiles after the token's expires_in")
        }
    }

    @Test func unknownServiceProviderIsInvalidParameterServiceProvider() async throws {
        try await BackendFixture.with { _, client async throws in
            let tv = try await tvApp(client)
            let codes: Set<String> = ["invalid_parameter_service_provider"]
            let configuration = try await tv.get("/api/v2/NOPE/configuration")
            expectError(configuration, status: 400, codes: codes, "GET /api/v2/NOPE/configuration")
            let profiles = try await tv.get("/api/v2/NOPE/profiles")
            expectError(profiles, status: 400, codes: codes, "GET /api/v2/NOPE/profiles")
            let session = try await tv.post("/api/v2/NOPE/sessions", form: sessionForm(mvpd: "Dish"))
            expectError(session, status: 400, codes: codes, "POST /api/v2/NOPE/sessions")
        }
    }

    @Test func bearerOfAnotherServiceProviderIsInvalidAccessTokenServiceProvider() async throws {
        try await BackendFixture.with { _, client async throws in
            let tv = try await tvApp(client)  // registered for REF30
            let codes: Set<String> = ["invalid_access_token_service_provider"]
            let configuration = try await tv.get("/api/v2/SPORTS1/configuration")
            expectError(configuration, status: 401, codes: codes, "REF30's bearer on SPORTS1 configuration")
            let profiles = try await tv.get("/api/v2/SPORTS1/profiles")
            expectError(profiles, status: 401, codes: codes, "REF30's bearer on SPORTS1 profiles")
            let session = try await tv.post("/api/v2/SPORTS1/sessions", form: sessionForm(mvpd: "Dish"))
            expectError(session, status: 401, codes: codes, "REF30's bearer on SPORTS1 sessions")
        }
    }

    @Test func unknownOrUnintegratedMVPDIsRefused() async throws {
        try await BackendFixture.with { _, client async throws in
            let tv = try await tvApp(client)
            let unknown: Set<String> = ["invalid_parameter_mvpd", "invalid_integration"]
            let authorize = try await tv.decisions("authorize", mvpd: "Nowhere", resources: ["news"])
            expectError(authorize, status: 400, codes: unknown, "authorize with mvpd Nowhere")
            let preauthorize = try await tv.decisions("preauthorize", mvpd: "Nowhere", resources: ["news"])
            expectError(preauthorize, status: 400, codes: unknown, "preauthorize with mvpd Nowhere")
            let profile = try await tv.get("/api/v2/REF30/profiles/Nowhere")
            expectError(profile, status: 400, codes: unknown, "GET profiles/Nowhere")
            let session = try await tv.post("/api/v2/REF30/sessions", form: sessionForm(mvpd: "Nowhere"))
            expectError(session, status: 400, codes: unknown, "POST sessions with mvpd Nowhere")

            // Rogers exists but REF30 has no integration with it: the code that says exactly that.
            let rogers = try await tv.decisions("authorize", mvpd: "Rogers", resources: ["news"])
            expectError(rogers, status: 400, codes: ["invalid_integration"], "authorize with mvpd Rogers (not REF30's)")
            let rogersSession = try await tv.post("/api/v2/REF30/sessions", form: sessionForm(mvpd: "Rogers"))
            expectError(rogersSession, status: 400, codes: ["invalid_integration"], "POST sessions with mvpd Rogers")
        }
    }

    @Test func malformedResourcesAreInvalidParameterResources() async throws {
        try await BackendFixture.with { _, client async throws in
            let tv = try await tvApp(client)
            try await signIn(tv, username: "carol", password: "carol123")
            let bodies = [
                "resources=news",
                #"{"resources": ["news"]"#,
                "{}",
                #"{"resources": "news"}"#,
                #"{"resources": 1e300}"#,
                #"{"resources": [1e300]}"#,
                #"{"resources": null}"#,
                #"["news"]"#,
            ]
            for kind in ["authorize", "preauthorize"] {
                for body in bodies {
                    let answer = try await tv.post("/api/v2/REF30/decisions/\(kind)/Dish", json: body)
                    expectError(
                        answer, status: 400, codes: ["invalid_parameter_resources"], "\(kind) with body \(body)")
                }
            }
        }
    }

    @Test func unknownExpiredOrForeignCodeIsRefused() async throws {
        try await BackendFixture.with { service, client async throws in
            let tv = try await tvApp(client)
            let codes: Set<String> = ["invalid_parameter_code", "invalid_authentication_session"]
            let unknown = "ZZZZ999"
            let session = try await tv.withoutDevice.get("/api/v2/REF30/sessions/\(unknown)")
            expectError(session, status: 400, codes: codes, "GET sessions/\(unknown)")
            let resume = try await tv.withoutDevice.post(
                "/api/v2/REF30/sessions/\(unknown)", form: sessionForm(mvpd: "Dish"))
            expectError(resume, status: 400, codes: codes, "POST sessions/\(unknown)")
            let poll = try await tv.withoutDevice.get("/api/v2/REF30/profiles/code/\(unknown)")
            expectError(poll, status: 400, codes: codes, "GET profiles/code/\(unknown)")
            // The browser endpoint answers 400 too, though not in the JSON error format (§3.5).
            let browser = try await client.get("/api/v2/authenticate/REF30/\(unknown)")
            #expect(
                browser.status == 400, "GET /api/v2/authenticate/REF30/\(unknown): \(browser.status) \(browser.text)")

            // A REF30 code is not SPORTS1's.
            let created = try await tv.post("/api/v2/REF30/sessions", form: sessionForm(mvpd: "Dish"))
            let code = try #require(created.json["code"] as? String, "\(created.text)")
            let sportsBearer = try await Self.register(client, statement: "sports1-software-statement")
            let sports = V2Client(http: client, bearer: sportsBearer, device: "tv-sports")
            let foreign = try await sports.withoutDevice.get("/api/v2/SPORTS1/sessions/\(code)")
            expectError(foreign, status: 400, codes: codes, "REF30's code under SPORTS1")

            // Past its notAfter the code is gone.
            let notAfter = try #require(Self.millisString(created.json["notAfter"]), "\(created.text)")
            let left = Double(notAfter - Self.millis(service.now())) / 1000
            service.clock.advance(by: max(left, 0) + 1)
            let expired = try await tv.withoutDevice.get("/api/v2/REF30/sessions/\(code)")
            expectError(expired, status: 400, codes: codes, "GET sessions/{code} after notAfter")
            let expiredBrowser = try await client.get("/api/v2/authenticate/REF30/\(code)")
            #expect(
                expiredBrowser.status == 400,
                "authenticate after notAfter: \(expiredBrowser.status) \(expiredBrowser.text)")
        }
    }

    @Test func logoutWithoutRedirectUrlIsInvalidParameterRedirectUrl() async throws {
        try await BackendFixture.with { _, client async throws in
            let tv = try await tvApp(client)
            let answer = try await tv.get("/api/v2/REF30/logout/Dish")
            expectError(answer, status: 400, codes: ["invalid_parameter_redirect_url"], "logout without redirectUrl")
        }
    }

    @Test func wrongMethodIs405() async throws {
        try await BackendFixture.with { _, client async throws in
            let tv = try await tvApp(client)
            let deleted = try await tv.delete("/api/v2/REF30/profiles")
            #expect(deleted.status == 405, "DELETE profiles: \(deleted.status) \(deleted.text)")
            let fetched = try await tv.get("/api/v2/REF30/decisions/authorize/Dish")
            #expect(fetched.status == 405, "GET decisions/authorize: \(fetched.status) \(fetched.text)")
        }
    }
}

// MARK: - The client

/// A streaming application speaking REST API v2: its bearer token and its device's headers go on every call.
private struct V2Client {
    let http: TestHTTPClient
    /// The whole `Authorization` value (`Bearer …`); nil sends none.
    var authorization: String?
    /// The whole `AP-Device-Identifier` value (`fingerprint <Base64>`); nil sends none.
    var deviceIdentifier: String?
    /// The `X-Device-Info` value; nil sends none.
    var deviceInfo: String?
    /// More headers (`AP-TempPass-Identity`).
    var extra: [String: String] = [:]

    init(http: TestHTTPClient, bearer: String, device: String, deviceInfo: String? = V2Client.tvDeviceInfo) {
        self.http = http
        authorization = "Bearer \(bearer)"
        deviceIdentifier = Self.fingerprint(device)
        self.deviceInfo = deviceInfo
    }

    /// `AP-Device-Identifier` for `device` (§2.3): the type, a space, the Base64 of the identifier.
    static func fingerprint(_ device: String) -> String { "fingerprint " + Data(device.utf8).base64EncodedString() }

    /// A set-top box's `X-Device-Info` (§2.4, with every key marked required).
    static let tvDeviceInfo = base64(
        #"{"primaryHardwareType":"SetTopBox","model":"AppleTV","version":"4K","manufacturer":"Apple","#
            + #""vendor":"Apple","osName":"tvOS","osVersion":"17.0","connectionType":"WiFi"}"#)

    /// A phone's `X-Device-Info`.
    static let phoneDeviceInfo = base64(
        #"{"primaryHardwareType":"MobilePhone","model":"SM-S901U","version":"r0q","manufacturer":"samsung","#
            + #""osName":"Android","osVersion":"14","connectionType":"WiFi"}"#)

    /// The `X-Device-Info` of every §3 sample, verbatim (its JSON lacks a comma after `"osName": "tvOS"`).
    static let docsSampleDeviceInfo =
        "ewoJInByaW1hcnlIYXJkd2FyZVR5cGUiOiAiU2V0VG9wQm94IiwKCSJtb2RlbCI6ICJUViA1dGggR2VuIiwKCSJtYW51ZmFjdHVyZXIiOiAi"
        + "QXBwbGUiLAoJIm9zTmFtZSI6ICJ0dk9TIgoJIm9zVmVuZG9yIjogIkFwcGxlIiwKCSJvc1ZlcnNpb24iOiAiMTEuMCIKfQ=="

    static func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

    /// The same application on a call the docs list with `Authorization` only (§2.1: sessions/{code}, profiles/code).
    var withoutDevice: V2Client {
        var copy = self
        copy.deviceIdentifier = nil
        copy.deviceInfo = nil
        return copy
    }

    var headers: [String: String] {
        var headers = ["Accept": "application/json"]
        if let authorization { headers["Authorization"] = authorization }
        if let deviceIdentifier { headers["AP-Device-Identifier"] = deviceIdentifier }
        if let deviceInfo { headers["X-Device-Info"] = deviceInfo }
        headers.merge(extra) { _, new in new }
        return headers
    }

    func get(_ path: String) async throws -> HTTPResult { try await http.get(path, headers: headers) }

    func delete(_ path: String) async throws -> HTTPResult { try await http.delete(path, headers: headers) }

    func post(_ path: String, form: [(String, String)]) async throws -> HTTPResult {
        try await http.post(path, form: form, headers: headers)
    }

    func post(_ path: String, json: String) async throws -> HTTPResult {
        try await http.post(path, json: Data(json.utf8), headers: headers)
    }

    /// `POST /api/v2/REF30/decisions/{kind}/{mvpd}` with `{"resources": [...]}`.
    func decisions(_ kind: String, mvpd: String, resources: [String]) async throws -> HTTPResult {
        let body = try JSONSerialization.data(withJSONObject: ["resources": resources])
        return try await http.post("/api/v2/REF30/decisions/\(kind)/\(mvpd)", json: body, headers: headers)
    }
}

/// A user agent: no API headers, follows redirects, meta refreshes, auto-posting forms and *Resume* pages while they
/// stay on the backend, and stops at a page or at the first URL elsewhere (the session's `redirectUrl`).
private struct V2Browser {
    let client: TestHTTPClient

    /// Opens `path` (the session's authenticate URL), expects the documented `302`, signs in on the MVPD's page, and
    /// returns the URL the browser was sent to off the backend.
    func signIn(_ path: String, username: String, password: String) async throws -> String? {
        let first = try await client.get(path)
        #expect(
            first.status == 302,
            "GET \(path) redirects toward the MVPD (§3.5): \(first.status) \(first.text.prefix(300))")
        let (page, left) = try await walk(first)
        #expect(left == nil, "the browser left the backend before the login page, for \(left ?? "")")
        #expect(page.status == 200, "the MVPD login page: \(page.status) \(page.text.prefix(300))")
        let (last, end) = try await submit(page, username: username, password: password)
        if end == nil {
            Issue.record("the sign-in never left the backend; last page: \(last.status) \(last.text.prefix(300))")
        }
        return end
    }

    /// Posts the MVPD login form of `page` with the credentials, in the MVPD's own field names, then walks on.
    func submit(_ page: HTTPResult, username: String, password: String) async throws -> (
        page: HTTPResult, left: String?
    ) {
        let html = page.text
        guard let action = WebLogin.capture(html, #"<form method="post" action="([^"]+)""#),
            let login = WebLogin.capture(html, #"name="login" value="([^"]+)""#),
            let userField = WebLogin.capture(html, #"<input id="[^"]*" name="([^"]+)" autocomplete="username""#),
            let passwordField = WebLogin.capture(html, #"name="([^"]+)" type="password""#)
        else {
            Issue.record("no login form in page: \(html.prefix(300))")
            return (page, nil)
        }
        guard let target = onBackend(action) else { return (page, action) }
        let form = [("login", login), (userField, username), (passwordField, password), ("action", "signin")]
        return try await walk(try await client.post(target, form: form), pressResume: true)
    }

    func walk(_ first: HTTPResult, pressResume: Bool = false) async throws -> (page: HTTPResult, left: String?) {
        var result = first
        for _ in 0..<16 {
            var next: String?
            if (300..<400).contains(result.status), let location = result.header("Location") {
                next = location
            } else if let refresh = WebLogin.capture(result.text, #"http-equiv="refresh" content="0; url=([^"]+)""#) {
                next = refresh
            } else if result.text.contains("document.forms[0].submit()")
                || (pressResume && result.text.contains(">Resume<")),
                let post = WebLogin.hiddenForm(result.text)
            {
                guard let target = onBackend(post.action) else { return (result, post.action) }
                result = try await client.post(target, form: post.fields)
                continue
            }
            guard let next else { return (result, nil) }
            guard let target = onBackend(next) else { return (result, next) }
            result = try await client.get(target)
        }
        Issue.record("the browser took too many steps")
        return (result, nil)
    }

    /// The path of `url` when it points at the backend, else nil.
    func onBackend(_ url: String) -> String? {
        if url.hasPrefix("/") { return url }
        if url.hasPrefix(client.baseURL + "/") { return String(url.dropFirst(client.baseURL.count)) }
        return nil
    }
}

// MARK: - Helpers

private extension RESTv2CookbookTests {
    /// The v2 codes used here with the action §4.3 gives them.
    static let documentedActions: [String: String] = [
        "invalid_parameter_service_provider": "none", "invalid_parameter_mvpd": "none",
        "invalid_parameter_code": "none",
        "invalid_parameter_resources": "none", "invalid_parameter_redirect_url": "none",
        "invalid_header_device_info": "none", "invalid_header_device_identifier": "none", "invalid_integration": "none",
        "invalid_authentication_session": "none", "authorization_denied_by_mvpd": "none",
        "preauthorization_denied_by_mvpd": "none", "authenticated_profile_missing": "authentication",
        "invalid_access_token_service_provider": "application-registration",
        "invalid_access_token_client_application": "application-registration",
    ]
    /// §4.2's action values.
    static let actions: Set<String> = [
        "none", "configuration", "application-registration", "authentication", "authorization", "retry",
    ]

    static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// Epoch milliseconds written as a JSON string of digits, as the session samples show (`"1733735289035"`).
    static func millisString(_ value: Any?) -> Int64? {
        guard let text = value as? String, !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            return nil
        }
        return Int64(text)
    }

    /// A JSON number (not a string), as the profile and decision samples write timestamps (`1752149281000`).
    static func millisNumber(_ value: Any?) -> Int64? {
        if value as? String != nil { return nil }
        if let number = value as? NSNumber { return number.int64Value }
        if let number = value as? Int { return Int64(number) }
        if let number = value as? Double { return Int64(number) }
        return nil
    }

    /// DCR (§7): software statement → client credentials → the token answer.
    static func token(_ http: TestHTTPClient, statement: String = "demo-software-statement") async throws -> HTTPResult
    {
        let body = try JSONSerialization.data(withJSONObject: ["software_statement": statement])
        let registered = try await http.post(
            "/o/client/register", json: body, headers: ["X-Device-Info": V2Client.tvDeviceInfo])
        #expect(registered.status == 201, "register: \(registered.text)")
        let clientID = try #require(registered.json["client_id"] as? String, "register: \(registered.text)")
        let secret = try #require(registered.json["client_secret"] as? String, "register: \(registered.text)")
        let issued = try await http.post(
            "/o/client/token",
            form: [("grant_type", "client_credentials"), ("client_id", clientID), ("client_secret", secret)],
            headers: ["X-Device-Info": V2Client.tvDeviceInfo])
        #expect(issued.status == 201, "token: \(issued.text)")
        return issued
    }

    /// DCR (§7): a fresh access token for an app of `statement`.
    static func register(_ http: TestHTTPClient, statement: String = "demo-software-statement") async throws -> String {
        let answer = try await token(http, statement: statement)
        return try #require(answer.json["access_token"] as? String, "token: \(answer.text)")
    }

    /// A TV app of REF30: registered afresh, on a device of its own.
    func tvApp(_ http: TestHTTPClient, device: String? = nil) async throws -> V2Client {
        let bearer = try await Self.register(http)
        return V2Client(http: http, bearer: bearer, device: device ?? "tv-\(UUID().uuidString)")
    }

    func sessionForm(mvpd: String) -> [(String, String)] {
        [("mvpd", mvpd), ("domainName", Self.domain), ("redirectUrl", Self.redirectUrl)]
    }

    /// Signs `app`'s device in at Dish as the cookbook's primary application does: a session, then the browser.
    @discardableResult
    func signIn(_ app: V2Client, username: String, password: String, sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> String
    {
        let created = try await app.post("/api/v2/REF30/sessions", form: sessionForm(mvpd: "Dish"))
        #expect(created.status == 200, "create session: \(created.text)", sourceLocation: sourceLocation)
        #expect(
            created.json["actionName"] as? String == "authenticate", "create session: \(created.text)",
            sourceLocation: sourceLocation)
        let code = try #require(
            created.json["code"] as? String, "create session: \(created.text)", sourceLocation: sourceLocation)
        let end = try await V2Browser(client: app.http).signIn(
            "/api/v2/authenticate/REF30/\(code)", username: username, password: password)
        #expect(
            end?.hasPrefix(Self.redirectUrl) == true, "the browser ends at the redirectUrl, not \(end ?? "a page")",
            sourceLocation: sourceLocation)
        return code
    }

    /// A Sessions answer telling the app to open the authenticate URL (§3.2 / §3.3 Sample 1); returns its code.
    func checkAuthenticateAction(
        _ answer: HTTPResult, mvpd: String, code expected: String? = nil, now: Int64, _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> String {
        let context = "\(what) → \(answer.status) \(answer.text)"
        let json = answer.json
        #expect(answer.status == 200, "HTTP status (§3.2: 200): \(context)", sourceLocation: sourceLocation)
        #expect(json["actionName"] as? String == "authenticate", "\(context)", sourceLocation: sourceLocation)
        #expect(json["actionType"] as? String == "interactive", "\(context)", sourceLocation: sourceLocation)
        #expect(json["reasonType"] as? String == "none", "\(context)", sourceLocation: sourceLocation)
        let code = try #require(json["code"] as? String, "code: \(context)", sourceLocation: sourceLocation)
        #expect(!code.isEmpty, "code: \(context)", sourceLocation: sourceLocation)
        if let expected { #expect(code == expected, "the path's code: \(context)", sourceLocation: sourceLocation) }
        #expect(
            json["url"] as? String == "/api/v2/authenticate/REF30/\(code)", "url: \(context)",
            sourceLocation: sourceLocation)
        #expect(!(json["sessionId"] as? String ?? "").isEmpty, "sessionId: \(context)", sourceLocation: sourceLocation)
        #expect(json["mvpd"] as? String == mvpd, "mvpd: \(context)", sourceLocation: sourceLocation)
        #expect(
            json["serviceProvider"] as? String == "REF30", "serviceProvider: \(context)", sourceLocation: sourceLocation
        )
        #expect(
            (json["missingParameters"] as? [String] ?? []).isEmpty, "nothing missing: \(context)",
            sourceLocation: sourceLocation)
        checkCodeWindow(json, now: now, context, sourceLocation: sourceLocation)
        return code
    }

    /// A code's `notBefore`/`notAfter`: strings of epoch milliseconds (§3.2 samples), 30 minutes apart, from now.
    func checkCodeWindow(
        _ json: [String: Any], now: Int64, _ context: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let notBefore = Self.millisString(json["notBefore"])
        let notAfter = Self.millisString(json["notAfter"])
        #expect(
            notBefore != nil && notAfter != nil, "notBefore/notAfter are strings of milliseconds: \(context)",
            sourceLocation: sourceLocation)
        guard let notBefore, let notAfter else { return }
        #expect(
            abs(notBefore - now) < 120_000, "notBefore is about now, in milliseconds: \(context)",
            sourceLocation: sourceLocation)
        #expect(
            abs(notAfter - notBefore - 1_800_000) <= 1_000,
            "the code lives 30 minutes (every sample; regcodeTTL 1800): \(context)",
            sourceLocation: sourceLocation)
    }

    /// A Profiles answer (§3.6–3.9): `200 {"profiles": {...}}` holding exactly `mvpds`, each a regular profile whose
    /// issuer is its MVPD, timestamps numbers of milliseconds `ttl` seconds apart, attributes `{value, state}`.
    func checkProfiles(
        _ answer: HTTPResult, _ mvpds: Set<String>, ttl: Int64 = 0, now: Int64, _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let context = "\(what) → \(answer.status) \(answer.text)"
        #expect(answer.status == 200, "HTTP status: \(context)", sourceLocation: sourceLocation)
        guard let profiles = answer.json["profiles"] as? [String: Any] else {
            Issue.record("no profiles map: \(context)", sourceLocation: sourceLocation)
            return
        }
        #expect(
            Set(profiles.keys) == mvpds, "profiles for \(mvpds.sorted()): \(context)", sourceLocation: sourceLocation)
        for mvpd in mvpds {
            guard let profile = profiles[mvpd] as? [String: Any] else { continue }
            #expect(profile["issuer"] as? String == mvpd, "issuer: \(context)", sourceLocation: sourceLocation)
            #expect(profile["type"] as? String == "regular", "type: \(context)", sourceLocation: sourceLocation)
            let notBefore = Self.millisNumber(profile["notBefore"])
            let notAfter = Self.millisNumber(profile["notAfter"])
            #expect(
                notBefore != nil && notAfter != nil, "notBefore/notAfter are numbers of milliseconds: \(context)",
                sourceLocation: sourceLocation)
            if let notBefore, let notAfter {
                #expect(
                    abs(notBefore - now) < 300_000, "notBefore is the sign-in, in milliseconds: \(context)",
                    sourceLocation: sourceLocation)
                #expect(
                    abs(notAfter - notBefore - ttl * 1000) < 5_000,
                    "the profile lives the MVPD's authN TTL (\(ttl) s): \(context)",
                    sourceLocation: sourceLocation)
            }
            guard let attributes = profile["attributes"] as? [String: Any] else {
                Issue.record("no attributes map: \(context)", sourceLocation: sourceLocation)
                continue
            }
            let userID = (attributes["userID"] as? [String: Any])?["value"] as? String ?? ""
            #expect(userID.count > 0, "attributes.userID.value: \(context)", sourceLocation: sourceLocation)
            for (name, attribute) in attributes {
                let fields = attribute as? [String: Any]
                #expect(fields?["value"] != nil, "attributes.\(name).value: \(context)", sourceLocation: sourceLocation)
                #expect(
                    ["plain", "enc"].contains(fields?["state"] as? String ?? ""),
                    "attributes.\(name).state is plain or enc: \(context)",
                    sourceLocation: sourceLocation)
            }
        }
    }

    /// The decision for `resource` in a Decisions answer (§3.10): HTTP 200 with a `decisions` list.
    func findDecision(
        _ answer: HTTPResult, _ resource: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    )
        -> [String: Any]?
    {
        let context = "\(what) → \(answer.status) \(answer.text)"
        #expect(answer.status == 200, "HTTP status: \(context)", sourceLocation: sourceLocation)
        let decisions = answer.json["decisions"] as? [[String: Any]] ?? []
        let found = decisions.first(where: { $0["resource"] as? String == resource })
        if found == nil { Issue.record("no decision for \(resource): \(context)", sourceLocation: sourceLocation) }
        return found
    }

    /// A permit (§3.10 Sample 1; §3.11 Sample 1 without token and decision timestamps).
    func checkPermit(
        _ decision: [String: Any], mvpd: String, mediaToken: Bool, _ context: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            decision["serviceProvider"] as? String == "REF30", "serviceProvider: \(context)",
            sourceLocation: sourceLocation)
        #expect(decision["mvpd"] as? String == mvpd, "mvpd: \(context)", sourceLocation: sourceLocation)
        #expect(decision["source"] as? String == "mvpd", "source: \(context)", sourceLocation: sourceLocation)
        #expect(decision["authorized"] as? Bool == true, "authorized: \(context)", sourceLocation: sourceLocation)
        #expect(decision["error"] == nil, "no error on a permit: \(context)", sourceLocation: sourceLocation)
        guard mediaToken else {
            #expect(
                decision["token"] == nil, "preauthorization gives no media token: \(context)",
                sourceLocation: sourceLocation)
            #expect(
                decision["notBefore"] == nil && decision["notAfter"] == nil,
                "no decision timestamps in preauthorization: \(context)",
                sourceLocation: sourceLocation)
            return
        }
        let token = decision["token"] as? [String: Any]
        let tokenNotBefore = Self.millisNumber(token?["notBefore"])
        let tokenNotAfter = Self.millisNumber(token?["notAfter"])
        #expect(
            tokenNotBefore != nil && tokenNotAfter != nil, "token.notBefore/notAfter are numbers: \(context)",
            sourceLocation: sourceLocation)
        if let tokenNotBefore, let tokenNotAfter {
            #expect(tokenNotAfter > tokenNotBefore, "token window: \(context)", sourceLocation: sourceLocation)
        }
        let serialized = token?["serializedToken"] as? String ?? ""
        #expect(
            !serialized.isEmpty && Data(base64Encoded: serialized) != nil,
            "token.serializedToken is Base64: \(context)",
            sourceLocation: sourceLocation)
        let notBefore = Self.millisNumber(decision["notBefore"])
        let notAfter = Self.millisNumber(decision["notAfter"])
        #expect(
            notBefore != nil && notAfter != nil, "decision notBefore/notAfter are numbers: \(context)",
            sourceLocation: sourceLocation)
        if let notBefore, let notAfter {
            #expect(notAfter > notBefore, "decision window: \(context)", sourceLocation: sourceLocation)
        }
    }

    /// A deny: `authorized: false` and an item-level error with status 403 (§3.10 Sample 2, §3.11 Sample 1).
    func checkDeny(
        _ decision: [String: Any], mvpd: String, code: String, _ context: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            decision["serviceProvider"] as? String == "REF30", "serviceProvider: \(context)",
            sourceLocation: sourceLocation)
        #expect(decision["mvpd"] as? String == mvpd, "mvpd: \(context)", sourceLocation: sourceLocation)
        #expect(decision["source"] as? String == "mvpd", "source: \(context)", sourceLocation: sourceLocation)
        #expect(decision["authorized"] as? Bool == false, "authorized: \(context)", sourceLocation: sourceLocation)
        #expect(decision["token"] == nil, "no media token on a deny: \(context)", sourceLocation: sourceLocation)
        checkError(
            decision["error"] as? [String: Any], status: 403, codes: [code], context, sourceLocation: sourceLocation)
    }

    /// `authenticated_profile_missing` (403), top-level or inside the decision: the docs show neither (§4.4).
    func expectProfileMissing(
        _ answer: HTTPResult, resource: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let codes: Set<String> = ["authenticated_profile_missing"]
        guard answer.status == 200 else {
            expectError(answer, status: 403, codes: codes, what, sourceLocation: sourceLocation)
            return
        }
        let context = "\(what) → \(answer.status) \(answer.text)"
        let decisions = answer.json["decisions"] as? [[String: Any]] ?? []
        guard let decision = decisions.first(where: { $0["resource"] as? String == resource }) else {
            Issue.record("neither a 403 nor a decision for \(resource): \(context)", sourceLocation: sourceLocation)
            return
        }
        #expect(decision["authorized"] as? Bool == false, "authorized: \(context)", sourceLocation: sourceLocation)
        #expect(decision["token"] == nil, "no media token: \(context)", sourceLocation: sourceLocation)
        checkError(
            decision["error"] as? [String: Any], status: 403, codes: codes, context, sourceLocation: sourceLocation)
    }

    /// A Logout answer (§3.12): `logouts.{mvpd}` with the action pairs the docs list.
    func checkLogout(
        _ answer: HTTPResult, mvpd: String = "Dish", hadProfile: Bool, _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let context = "\(what) → \(answer.status) \(answer.text)"
        #expect(answer.status == 200, "HTTP status: \(context)", sourceLocation: sourceLocation)
        guard let logouts = answer.json["logouts"] as? [String: Any], let entry = logouts[mvpd] as? [String: Any] else {
            Issue.record("no logouts.\(mvpd): \(context)", sourceLocation: sourceLocation)
            return
        }
        #expect(Set(logouts.keys) == [mvpd], "one entry, for \(mvpd): \(context)", sourceLocation: sourceLocation)
        #expect(entry["mvpd"] as? String == mvpd, "mvpd: \(context)", sourceLocation: sourceLocation)
        let action = (entry["actionName"] as? String, entry["actionType"] as? String)
        guard hadProfile else {
            #expect(
                action.0 == "invalid" && action.1 == "none", "no valid profile: invalid/none: \(context)",
                sourceLocation: sourceLocation)
            #expect(entry["url"] == nil, "no url: \(context)", sourceLocation: sourceLocation)
            return
        }
        switch action {
        case ("logout"?, "interactive"?):
            #expect(
                !(entry["url"] as? String ?? "").isEmpty, "logout/interactive has a url: \(context)",
                sourceLocation: sourceLocation)
        case ("complete"?, "none"?):
            #expect(entry["url"] == nil, "complete/none has no url: \(context)", sourceLocation: sourceLocation)
        default:
            Issue.record(
                "actionName/actionType is logout/interactive or complete/none: \(context)",
                sourceLocation: sourceLocation)
        }
    }

    /// An Enhanced Error Code object (§4.2): `status`, a code among `codes` (any non-empty code when `codes` is
    /// empty), a message, the code's documented action, an absolute helpUrl, and a string trace when present.
    @discardableResult
    func checkError(
        _ error: [String: Any]?, status: Int, codes: Set<String>, _ context: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> String? {
        guard let error else {
            Issue.record("no error object: \(context)", sourceLocation: sourceLocation)
            return nil
        }
        #expect(error["status"] as? Int == status, "error status \(status): \(context)", sourceLocation: sourceLocation)
        let code = error["code"] as? String
        if codes.isEmpty {
            #expect(!(code ?? "").isEmpty, "a code: \(context)", sourceLocation: sourceLocation)
        } else {
            #expect(
                code.map { codes.contains($0) } == true, "code is one of \(codes.sorted()): \(context)",
                sourceLocation: sourceLocation)
        }
        #expect(!(error["message"] as? String ?? "").isEmpty, "a message: \(context)", sourceLocation: sourceLocation)
        let action = error["action"] as? String
        if let code, let documented = Self.documentedActions[code] {
            #expect(
                action == documented, "action \(documented) for \(code) (§4.3): \(context)",
                sourceLocation: sourceLocation)
        } else {
            #expect(
                action.map { Self.actions.contains($0) } == true, "a §4.2 action: \(context)",
                sourceLocation: sourceLocation)
        }
        #expect(
            (error["helpUrl"] as? String)?.hasPrefix("http") == true, "an absolute helpUrl: \(context)",
            sourceLocation: sourceLocation)
        if let trace = error["trace"] {
            #expect(trace as? String != nil, "trace is a string: \(context)", sourceLocation: sourceLocation)
        }
        return code
    }

    /// A top-level error (§4.1): the HTTP status is the error's, the JSON body is the error object itself.
    @discardableResult
    func expectError(
        _ answer: HTTPResult, status: Int, codes: Set<String>, _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> String? {
        let context = "\(what) → \(answer.status) \(answer.text)"
        #expect(answer.status == status, "HTTP status \(status): \(context)", sourceLocation: sourceLocation)
        #expect(
            answer.header("Content-Type")?.contains("application/json") == true, "a JSON body: \(context)",
            sourceLocation: sourceLocation)
        return checkError(answer.json, status: status, codes: codes, context, sourceLocation: sourceLocation)
    }
}

// MARK: - Degraded access and throttling (docs/rest-api-v2.md §5.9, §6)

extension RESTv2CookbookTests {
    @Test func degradedAccessAuthNAllSkipsTheSignInAndPermitsWithTheDegradationAsSource() async throws {
        try await BackendFixture.with { service, client async throws in
            service.faults.degradations = [Degradation(mvpd: "Dish", rule: .authNAll)]
            let tv = try await tvApp(client)
            let session = try await tv.post("/api/v2/REF30/sessions", form: sessionForm(mvpd: "Dish"))
            #expect(session.status == 200, "\(session.text)")
            #expect(session.json["actionName"] as? String == "authorize")
            #expect(session.json["actionType"] as? String == "direct")
            #expect(session.json["reasonType"] as? String == "degraded")
            #expect(session.json["code"] == nil, "no code: nobody signs in")
            #expect(session.json["url"] as? String == "/api/v2/REF30/decisions/authorize/Dish")

            let profile = try await tv.get("/api/v2/REF30/profiles/Dish")
            let dish = (profile.json["profiles"] as? [String: Any])?["Dish"] as? [String: Any]
            #expect(dish?["type"] as? String == "degraded", "\(profile.text)")
            #expect(dish?["issuer"] as? String == "Adobe")
            let userID = ((dish?["attributes"] as? [String: Any])?["userID"] as? [String: Any])?["value"] as? String ?? ""
            #expect(userID.hasPrefix("95cf93bcd183214a"), "the vendor's degradation prefix: \(userID)")

            let decision = try await tv.decisions("authorize", mvpd: "Dish", resources: ["news"])
            let first = (decision.json["decisions"] as? [[String: Any]])?.first
            #expect(first?["authorized"] as? Bool == true, "\(decision.text)")
            #expect(first?["source"] as? String == "degradation")
            #expect(((first?["token"] as? [String: Any])?["serializedToken"] as? String)?.isEmpty == false)

            let logout = try await tv.get("/api/v2/REF30/logout/Dish?redirectUrl=https%3A%2F%2Fadobe.com")
            let action = (logout.json["logouts"] as? [String: Any])?["Dish"] as? [String: Any]
            #expect(action?["actionName"] as? String == "complete", "\(logout.text)")
            #expect(action?["actionType"] as? String == "none")
        }
    }

    @Test func degradedAccessAuthZNoneDeniesEachResourceWithTheDegradationRuleCode() async throws {
        try await BackendFixture.with { service, client async throws in
            let tv = try await tvApp(client)
            try await signIn(tv, username: "carol", password: "carol123")
            service.faults.degradations = [Degradation(mvpd: "Dish", requestor: "REF30", rule: .authZNone)]
            let decision = try await tv.decisions("authorize", mvpd: "Dish", resources: ["news"])
            #expect(decision.status == 200, "a denial is item-level: \(decision.text)")
            let first = (decision.json["decisions"] as? [[String: Any]])?.first
            #expect(first?["authorized"] as? Bool == false)
            #expect(first?["source"] as? String == "degradation")
            let error = first?["error"] as? [String: Any]
            #expect(error?["code"] as? String == "authorization_denied_by_degradation_rule", "\(decision.text)")
            #expect(error?["status"] as? Int == 403)
            // Another Programmer's decisions at Dish are not degraded.
            service.faults.degradations = [Degradation(mvpd: "Dish", requestor: "SPORTS1", rule: .authZNone)]
            let normal = try await tv.decisions("authorize", mvpd: "Dish", resources: ["news"])
            #expect(((normal.json["decisions"] as? [[String: Any]])?.first)?["source"] as? String == "mvpd", "\(normal.text)")
        }
    }

    @Test func degradedAccessAuthZAllPermitsOnlyWithAProfileAndOtherwiseAnswersAsUsual() async throws {
        try await BackendFixture.with { service, client async throws in
            service.faults.degradations = [Degradation(mvpd: "Dish", rule: .authZAll)]
            let tv = try await tvApp(client)
            let before = try await tv.decisions("authorize", mvpd: "Dish", resources: ["news"])
            expectProfileMissing(before, resource: "news", "AuthZAll without a sign-in: the basic answer")
            try await signIn(tv, username: "dave", password: "dave123")
            // dave is entitled to kids only; AuthZAll bypasses the MVPD's authorization.
            let decision = try await tv.decisions("authorize", mvpd: "Dish", resources: ["news"])
            let first = (decision.json["decisions"] as? [[String: Any]])?.first
            #expect(first?["authorized"] as? Bool == true, "\(decision.text)")
            #expect(first?["source"] as? String == "degradation")
        }
    }

    @Test func pastTheRateTheServiceAnswers429AsTheVendorsHTMLPageWithRetryAfter() async throws {
        try await BackendFixture.with { service, client async throws in
            let tv = try await tvApp(client)
            service.faults.throttle = ThrottleSettings(requestsPerSecond: 0.001, burst: 3)
            var statuses: [Int] = []
            for _ in 0..<5 { statuses.append(try await tv.get("/api/v2/REF30/profiles").status) }
            #expect(statuses == [200, 200, 200, 429, 429])
            let throttled = try await tv.get("/api/v2/REF30/profiles")
            #expect(throttled.status == 429)
            #expect(throttled.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(throttled.text.contains("429 Too Many Requests"))
            #expect(throttled.header("Retry-After") == "1")
        }
    }
}

// MARK: - Temporary access (docs/rest-api-v2.md §5.8)

extension RESTv2CookbookTests {
    static func decision(_ answer: HTTPResult) -> [String: Any]? { (answer.json["decisions"] as? [[String: Any]])?.first }

    @Test func basicTempPassPermitsWithoutASignInUntilItsTimeIsUpThenDeniesWithTheDurationCode() async throws {
        try await BackendFixture.with { service, client async throws in
            let tv = try await tvApp(client)
            let configuration = try await tv.get("/api/v2/REF30/configuration")
            let mvpds = ((configuration.json["requestor"] as? [String: Any])?["mvpds"] as? [[String: Any]]) ?? []
            #expect(mvpds.contains { $0["id"] as? String == "TempPass_REF30" && $0["isTempPass"] as? Bool == true }, "\(configuration.text)")

            let session = try await tv.post("/api/v2/REF30/sessions", form: sessionForm(mvpd: "TempPass_REF30"))
            #expect(session.json["actionName"] as? String == "authorize", "\(session.text)")
            #expect(session.json["reasonType"] as? String == "temporary")

            let first = try await tv.decisions("authorize", mvpd: "TempPass_REF30", resources: ["news"])
            #expect(Self.decision(first)?["authorized"] as? Bool == true, "\(first.text)")
            #expect(Self.decision(first)?["source"] as? String == "temppass")
            #expect(((Self.decision(first)?["token"] as? [String: Any])?["serializedToken"] as? String)?.isEmpty == false)
            let profile = try await tv.get("/api/v2/REF30/profiles/TempPass_REF30")
            let temporary = (profile.json["profiles"] as? [String: Any])?["TempPass_REF30"] as? [String: Any]
            #expect(temporary?["type"] as? String == "temporary", "\(profile.text)")
            #expect((temporary?["notAfter"] as? Int64 ?? 0) - (temporary?["notBefore"] as? Int64 ?? 0) == 600_000)

            // Ten minutes later (the backend's clock), the preview is over.
            service.faults.clockOffsetSeconds = 601
            let later = try await tv.decisions("authorize", mvpd: "TempPass_REF30", resources: ["news"])
            #expect(later.status == 200, "item-level: \(later.text)")
            #expect(Self.decision(later)?["authorized"] as? Bool == false)
            #expect((Self.decision(later)?["error"] as? [String: Any])?["code"] as? String == "temporary_access_duration_limit_exceeded")
            let expired = try await tv.get("/api/v2/REF30/profiles/TempPass_REF30")
            #expect(expired.status == 403, "top-level on profiles: \(expired.text)")
            #expect(expired.json["code"] as? String == "temporary_access_duration_limit_exceeded")
            // Another device starts its own preview.
            var other = tv
            other.deviceIdentifier = V2Client.fingerprint("another-tv-\(UUID().uuidString)")
            let fresh = try await other.decisions("authorize", mvpd: "TempPass_REF30", resources: ["news"])
            #expect(Self.decision(fresh)?["authorized"] as? Bool == true, "\(fresh.text)")
        }
    }

    @Test func promotionalTempPassNeedsTheIdentityHeaderAndAllowsItsNumberOfResources() async throws {
        try await BackendFixture.with { _, client async throws in
            var tv = try await tvApp(client)
            let missing = try await tv.decisions("authorize", mvpd: "TempPass_Promo", resources: ["news"])
            #expect(missing.status == 200)
            #expect((Self.decision(missing)?["error"] as? [String: Any])?["code"] as? String == "invalid_header_identity_for_temporary_access",
                "\(missing.text)")
            let noIdentity = try await tv.get("/api/v2/REF30/profiles/TempPass_Promo")
            #expect(noIdentity.status == 400, "\(noIdentity.text)")
            #expect(noIdentity.json["code"] as? String == "invalid_header_identity_for_temporary_access")

            tv.extra["AP-TempPass-Identity"] = Data(#"{"email":"foo@bar.com"}"#.utf8).base64EncodedString()
            let news = try await tv.decisions("authorize", mvpd: "TempPass_Promo", resources: ["news"])
            #expect(Self.decision(news)?["authorized"] as? Bool == true, "\(news.text)")
            let again = try await tv.decisions("authorize", mvpd: "TempPass_Promo", resources: ["news"])
            #expect(Self.decision(again)?["authorized"] as? Bool == true, "the same resource again: \(again.text)")
            let sports = try await tv.decisions("authorize", mvpd: "TempPass_Promo", resources: ["sports"])
            #expect(Self.decision(sports)?["authorized"] as? Bool == false)
            #expect((Self.decision(sports)?["error"] as? [String: Any])?["code"] as? String == "temporary_access_resources_limit_exceeded",
                "\(sports.text)")
            let used = try await tv.get("/api/v2/REF30/profiles/TempPass_Promo")
            #expect(used.status == 403, "\(used.text)")
            #expect(used.json["code"] as? String == "temporary_access_resources_limit_exceeded")
        }
    }
}

// MARK: - Partner single sign-on (docs/rest-api-v2.md §3.13–3.14, §2.9)

extension RESTv2CookbookTests {
    static func partnerStatus(_ access: String?, _ provider: String?, expires: Date = Date().addingTimeInterval(86_400)) -> String {
        V2.PartnerFrameworkStatus(accessStatus: access, providerID: provider, expirationDate: String(Int64(expires.timeIntervalSince1970 * 1000))).base64
    }

    @Test func applePartnerSSOTurnsThePlatformsSignInIntoAnAppleSSOProfileWithoutALoginPage() async throws {
        try await BackendFixture.with { _, client async throws in
            var tv = try await tvApp(client)
            // What Settings → TV Provider does: the device's account signs in at Spectrum once.
            let platform = try await client.post("/mvpd/Spectrum/platform-signin", form: [("username", "bob"), ("password", "bob123")])
            let samlResponse = try #require(platform.json["SAMLResponse"] as? String, "\(platform.text)")
            tv.extra["AP-Partner-Framework-Status"] = Self.partnerStatus("granted", "Spectrum")

            let request = try await tv.post("/api/v2/REF30/sessions/sso/Apple", form: [("domainName", "adobe.com"), ("redirectUrl", Self.redirectUrl)])
            #expect(request.json["actionName"] as? String == "partner_profile", "\(request.text)")
            #expect(request.json["actionType"] as? String == "direct")
            #expect(request.json["url"] as? String == "/api/v2/REF30/profiles/sso/Apple")
            let authentication = request.json["authenticationRequest"] as? [String: Any]
            #expect(authentication?["type"] as? String == "saml")
            let saml = Data(base64Encoded: authentication?["request"] as? String ?? "").map { String(decoding: $0, as: UTF8.self) } ?? ""
            #expect(saml.contains("AuthnRequest"), "the request is Base64 of a SAML AuthnRequest: \(saml.prefix(80))")

            let created = try await tv.post("/api/v2/REF30/profiles/sso/Apple", form: [("SAMLResponse", samlResponse)])
            #expect(created.status == 201, "\(created.text)")
            let spectrum = (created.json["profiles"] as? [String: Any])?["Spectrum"] as? [String: Any]
            #expect(spectrum?["type"] as? String == "appleSSO")
            #expect(spectrum?["issuer"] as? String == "Apple")
            let profiles = try await tv.get("/api/v2/REF30/profiles")
            #expect(((profiles.json["profiles"] as? [String: Any])?["Spectrum"] as? [String: Any])?["type"] as? String == "appleSSO", "\(profiles.text)")
            let decision = try await tv.decisions("authorize", mvpd: "Spectrum", resources: ["news"])
            #expect(Self.decision(decision)?["authorized"] as? Bool == true, "\(decision.text)")
            // Signed in through the partner: the user signs out in the device's settings.
            let logout = try await tv.get("/api/v2/REF30/logout/Spectrum?redirectUrl=https%3A%2F%2Fadobe.com")
            let action = (logout.json["logouts"] as? [String: Any])?["Spectrum"] as? [String: Any]
            #expect(action?["actionName"] as? String == "partner_logout", "\(logout.text)")
            #expect(action?["actionType"] as? String == "partner_interactive")
            #expect(action?["url"] == nil)
            let configuration = try await tv.get("/api/v2/REF30/configuration")
            let mvpds = ((configuration.json["requestor"] as? [String: Any])?["mvpds"] as? [[String: Any]]) ?? []
            #expect(mvpds.first { $0["id"] as? String == "Spectrum" }?["enablePlatformServices"] as? Bool == true, "\(configuration.text)")
            #expect(mvpds.first { $0["id"] as? String == "Dish" }?["enablePlatformServices"] == nil)
        }
    }

    @Test func partnerSSOFallsBackToTheBasicFlowWhenThePartnerSaysNoOrTheMVPDHasNoAppleSSO() async throws {
        try await BackendFixture.with { _, client async throws in
            var tv = try await tvApp(client)
            let form = [("domainName", "adobe.com"), ("redirectUrl", Self.redirectUrl)]
            for (status, reason) in [(Self.partnerStatus("denied", nil), "pfs_fallback"), ("not base64!", "pfs_fallback"),
                                     (Self.partnerStatus("granted", "Dish"), "configuration_fallback"),
                                     (Self.partnerStatus("granted", "Spectrum", expires: Date(timeIntervalSince1970: 1_000)), "pfs_fallback")] {
                tv.extra["AP-Partner-Framework-Status"] = status
                let answer = try await tv.post("/api/v2/REF30/sessions/sso/Apple", form: form)
                #expect(answer.status == 200, "\(answer.text)")
                #expect(answer.json["actionName"] as? String == "authenticate", "\(reason): \(answer.text)")
                #expect(answer.json["reasonType"] as? String == reason, "\(answer.text)")
                let code = answer.json["code"] as? String ?? ""
                #expect(answer.json["url"] as? String == "/api/v2/authenticate/REF30/\(code)" && code.count == 7)
            }
            // The partner named no provider: the browser's authenticate page lets the user pick one.
            tv.extra["AP-Partner-Framework-Status"] = Self.partnerStatus("denied", nil)
            let denied = try await tv.post("/api/v2/REF30/sessions/sso/Apple", form: form)
            let code = try #require(denied.json["code"] as? String, "\(denied.text)")
            let picker = try await client.get("/api/v2/authenticate/REF30/\(code)")
            #expect(picker.status == 200 && picker.text.contains("mvpd=Dish"), "\(picker.text)")
            let end = try await V2Browser(client: client).signIn("/api/v2/authenticate/REF30/\(code)?mvpd=Dish", username: "carol", password: "carol123")
            #expect(end?.hasPrefix(Self.redirectUrl) == true, "\(end ?? "no redirect")")
            let profiles = try await tv.get("/api/v2/REF30/profiles")
            #expect((profiles.json["profiles"] as? [String: Any])?["Dish"] != nil, "\(profiles.text)")

            tv.extra["AP-Partner-Framework-Status"] = Self.partnerStatus("granted", "Spectrum")
            let missing = try await tv.post("/api/v2/REF30/sessions/sso/Apple", form: [("domainName", "adobe.com")])
            #expect(missing.json["actionName"] as? String == "resume", "\(missing.text)")
            #expect(missing.json["reasonType"] as? String == "missing_parameters_fallback")
            #expect(missing.json["missingParameters"] as? [String] == ["redirectUrl"])
            let unknown = try await tv.post("/api/v2/REF30/sessions/sso/Google", form: form)
            expectError(unknown, status: 400, codes: ["invalid_parameter_partner"], "an unknown partner")
        }
    }

    @Test func aPartnerProfileWantsAGrantedStatusForAKnownLiveProviderAndTheProvidersResponse() async throws {
        try await BackendFixture.with { _, client async throws in
            var tv = try await tvApp(client)
            let platform = try await client.post("/mvpd/Spectrum/platform-signin", form: [("username", "bob"), ("password", "bob123")])
            let samlResponse = try #require(platform.json["SAMLResponse"] as? String)
            let cases: [(String?, String)] = [
                (nil, "invalid_header_pfs_permission_access_not_present"),
                (Self.partnerStatus(nil, "Spectrum"), "invalid_header_pfs_permission_access_not_present"),
                (Self.partnerStatus("notDetermined", "Spectrum"), "invalid_header_pfs_permission_access_not_determined"),
                (Self.partnerStatus("denied", "Spectrum"), "invalid_header_pfs_permission_access_not_granted"),
                (Self.partnerStatus("granted", "Nowhere"), "invalid_header_pfs_provider_id_not_determined"),
                (Self.partnerStatus("granted", "Spectrum", expires: Date(timeIntervalSince1970: 1_000)), "invalid_header_pfs_provider_info_expired"),
            ]
            for (header, code) in cases {
                tv.extra["AP-Partner-Framework-Status"] = header
                let answer = try await tv.post("/api/v2/REF30/profiles/sso/Apple", form: [("SAMLResponse", samlResponse)])
                expectError(answer, status: 400, codes: [code], "AP-Partner-Framework-Status \(header ?? "missing")")
            }
            tv.extra["AP-Partner-Framework-Status"] = Self.partnerStatus("granted", "Spectrum")
            let forged = try await tv.post("/api/v2/REF30/profiles/sso/Apple", form: [("SAMLResponse", "PHNhbWxwOlJlc3BvbnNlLz4=")])
            expectError(forged, status: 400, codes: ["invalid_parameter_saml_response"], "a SAML response nobody signed")
            let profiles = try await tv.get("/api/v2/REF30/profiles")
            #expect((profiles.json["profiles"] as? [String: Any])?.isEmpty == true, "no profile was made: \(profiles.text)")
        }
    }
}

// MARK: - Single sign-on with a service token and a platform identity (docs/rest-api-v2.md §5.7.1–5.7.2, §5.7.4)

extension RESTv2CookbookTests {
    /// A JWS as the Programmer's identity service would sign it (the stand-in does not check the signature).
    static func jws(_ claims: [String: Any]) -> String {
        func part(_ object: [String: Any]) -> String {
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            return data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        return part(["alg": "RS256"]) + "." + part(claims) + ".c2lnbmF0dXJl"
    }

    @Test(arguments: ["AD-Service-Token", "Adobe-Subject-Token"])
    func aSecondAppWithTheSameSSOIdentityFindsTheFirstAppsSignInAndSingleLogoutEndsBoth(header: String) async throws {
        try await BackendFixture.with { _, client async throws in
            let user = "jane-\(UUID().uuidString.prefix(6))"
            let token = Self.jws(["iss": "dtc.example", "sub": user, "exp": Date().timeIntervalSince1970 + 3600])
            var first = try await tvApp(client)
            first.extra[header] = token
            try await signIn(first, username: "carol", password: "carol123")
            // Another app, another registration, on another device (a service token) or the same platform.
            var second = try await tvApp(client)
            let type = header == "AD-Service-Token" ? "serviceTokenSSO" : "platformSSO"
            let without = try await second.get("/api/v2/REF30/profiles")
            #expect((without.json["profiles"] as? [String: Any])?.isEmpty == true, "no identity, no SSO: \(without.text)")
            second.extra[header] = token
            let profiles = try await second.get("/api/v2/REF30/profiles")
            let dish = (profiles.json["profiles"] as? [String: Any])?["Dish"] as? [String: Any]
            #expect(dish?["type"] as? String == type, "\(profiles.text)")
            #expect(((dish?["attributes"] as? [String: Any])?["mvpd"] as? [String: Any])?["value"] as? String == "Dish")
            let session = try await second.post("/api/v2/REF30/sessions", form: sessionForm(mvpd: "Dish"))
            #expect(session.json["reasonType"] as? String == "authenticatedSSO", "\(session.text)")
            let decision = try await second.decisions("authorize", mvpd: "Dish", resources: ["news"])
            #expect(Self.decision(decision)?["authorized"] as? Bool == true, "\(decision.text)")
            // Another user's token finds nothing.
            var stranger = second
            stranger.extra[header] = Self.jws(["iss": "dtc.example", "sub": "someone-else"])
            #expect(((try await stranger.get("/api/v2/REF30/profiles")).json["profiles"] as? [String: Any])?.isEmpty == true)
            // An expired service token is no identity.
            var expired = second
            expired.extra[header] = Self.jws(["iss": "dtc.example", "sub": user, "exp": 1000])
            #expect(((try await expired.get("/api/v2/REF30/profiles")).json["profiles"] as? [String: Any])?.isEmpty == true)
            // Single logout from the second app ends the sign-in for both.
            let logout = try await second.get("/api/v2/REF30/logout/Dish?redirectUrl=https%3A%2F%2Fadobe.com")
            #expect(((logout.json["logouts"] as? [String: Any])?["Dish"] as? [String: Any])?["actionName"] as? String == "logout", "\(logout.text)")
            #expect(((try await second.get("/api/v2/REF30/profiles")).json["profiles"] as? [String: Any])?.isEmpty == true)
            #expect(((try await first.get("/api/v2/REF30/profiles")).json["profiles"] as? [String: Any])?.isEmpty == true,
                "the first app's profile went with the single logout")
        }
    }
}

// MARK: - The visitor ID on v2 (AP-Visitor-Identifier, docs/rest-api-v2.md §2.5)

extension RESTv2CookbookTests {
    @Test func theVisitorIDIsRecordedWithTheSignInAndEachPermittedDecision() async throws {
        try await BackendFixture.with { service, client async throws in
            var tv = try await tvApp(client)
            tv.extra["AP-Visitor-Identifier"] = "v2-visitor-1"
            let code = try await signIn(tv, username: "carol", password: "carol123")
            // The app reads its profile by code once the browser is done (the cookbook's step 5).
            _ = try await tv.get("/api/v2/REF30/profiles/code/\(code)")
            _ = try await tv.decisions("authorize", mvpd: "Dish", resources: ["news"])
            let records = service.visitorRecords.filter { $0.visitorID == "v2-visitor-1" }
            #expect(records.map(\.event) == [.signIn, .authorization], "\(records)")
            #expect(records.last?.resource == "news")
            #expect(records.allSatisfy { $0.mvpdID == "Dish" && $0.requestorID == "REF30" })
        }
    }
}
