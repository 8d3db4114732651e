import AccessEnabler
import Foundation
import PassProtocol
import PassTestSupport
import Testing

/// `passconsole flow cancel`, `check-authorization`, `selected-provider`, `--force-authn` and `--visitor-id`, run as
/// the built binary against a backend started by the test (see ``FlowCLI``): each seed scenario is one command.
@Suite(.serialized) struct FlowCallCommandTests {
    @Test(.enabled(if: FlowCLI.binary != nil, FlowCLI.missingMessage), arguments: EntitlementProtocol.allCases)
    func cancellingAtThePickerEndsTheAuthenticationWithProviderNotSelected(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let cli = FlowCLI(fixture: fixture, wire: wire)
            let cancel = try await cli.run("cancel")
            #expect(cancel.status == 0, "\(cancel)")
            #expect(cancel.callbacks("displayProviderDialog").count == 1)
            #expect(cancel.callbacks("navigateToUrl").isEmpty)
            let status = try #require(cancel.callbacks("setAuthenticationStatus").last, "\(cancel)")
            #expect(status["status"] as? Int == 0)
            #expect(status["errorCode"] as? String == ErrorCode.PROVIDER_NOT_SELECTED_ERROR)
            #expect(cancel.errors.isEmpty)
            // Nothing was picked: no provider is remembered.
            let selected = try await cli.run("selected-provider")
            #expect(selected.status != 0, "\(selected)")
            #expect(selected.callbacks("selectedProvider").count == 1)
            #expect(selected.callbacks("selectedProvider").first?["mvpd"] is NSNull)
        }
    }

    @Test(.enabled(if: FlowCLI.binary != nil, FlowCLI.missingMessage), arguments: EntitlementProtocol.allCases)
    func cancellingOnTheLoginPageSignsNobodyInAndErasesThePick(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let cli = FlowCLI(fixture: fixture, wire: wire)
            let cancel = try await cli.run("cancel", "--at", "login", "--mvpd", "Dish")
            #expect(cancel.status == 0, "\(cancel)")
            #expect(cancel.callbacks("displayProviderDialog").count == 1)
            #expect(cancel.callbacks("navigateToUrl").count == 1)
            #expect(cancel.callbacks("setAuthenticationStatus").map { $0["errorCode"] as? String } == [ErrorCode.PROVIDER_NOT_SELECTED_ERROR])
            // The login page was never submitted: the backend signed nobody in.
            #expect(fixture.service.signIns.isEmpty)
            // Cancelling erased the Programmer's pick (seed 002): the next getAuthentication shows the picker again.
            let selected = try await cli.run("selected-provider")
            #expect(selected.callbacks("selectedProvider").first?["mvpd"] is NSNull, "\(selected)")
            let again = try await cli.run("cancel")
            #expect(again.callbacks("displayProviderDialog").count == 1, "\(again)")
        }
    }

    @Test(.enabled(if: FlowCLI.binary != nil, FlowCLI.missingMessage), arguments: EntitlementProtocol.allCases)
    func cancellingWhileATVShowsItsRegistrationCodeStopsThePolling(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let tv = try #require(fixture.service.configuration.apps.first { $0.requestorID == "KIDSNET" })
            let cancel = try await FlowCLI(fixture: fixture, wire: wire).run(
                "cancel", "--at", "login", "--mvpd", "Dish", "--platform", "tvos", "--requestor", "KIDSNET",
                "--bundle-id", "com.kidsnet.tv.app", "--team", "KIDS5678", "--public-key", tv.publicKey, "--secret", tv.secret)
            #expect(cancel.status == 0, "\(cancel)")
            let code = cancel.callbacks("status").compactMap { $0["statusDictionary"] as? [String: String] }
                .first { $0["errorId"] == "REGCODE" }
            #expect(code?["code"]?.isEmpty == false, "\(cancel)")
            #expect(cancel.callbacks("setAuthenticationStatus").map { $0["errorCode"] as? String } == [ErrorCode.PROVIDER_NOT_SELECTED_ERROR])
        }
    }

    /// Issue #27 item 11: with a remembered provider, getAuthentication(forceAuthn: true) skips the picker and opens
    /// the login page at once; `cancel --at login --force-authn` waited for a picker that never came. (On REST API v2
    /// a valid profile cannot be forced to sign in again: docs/sdk.md lists it.)
    @Test(.enabled(if: FlowCLI.binary != nil, FlowCLI.missingMessage))
    func cancellingAForcedLoginOfTheRememberedProviderSkipsThePicker() async throws {
        try await SDKFixture.with { fixture in
            let cli = FlowCLI(fixture: fixture, wire: .sdk)
            #expect(try await cli.run("login", "--mvpd", "Dish", "--user", "carol", "--password", "carol123").status == 0)
            // At the picker there is nothing to cancel: it says where to cancel instead
            let atPicker = try await cli.run("cancel", "--force-authn")
            #expect(atPicker.status != 0)
            #expect(atPicker.errors.first?.contains("cancel --at login instead") == true, "\(atPicker)")
            let cancel = try await cli.run("cancel", "--at", "login", "--mvpd", "Dish", "--force-authn")
            #expect(cancel.status == 0, "\(cancel)")
            #expect(cancel.callbacks("displayProviderDialog").isEmpty, "the remembered provider skips the picker")
            #expect(cancel.callbacks("navigateToUrl").count == 1)
            #expect(cancel.callbacks("setAuthenticationStatus").last?["errorCode"] as? String == ErrorCode.PROVIDER_NOT_SELECTED_ERROR,
                "\(cancel)")
        }
    }

    @Test(.enabled(if: FlowCLI.binary != nil, FlowCLI.missingMessage), arguments: EntitlementProtocol.allCases)
    func cancelWithNothingToCancelSaysSo(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let cli = FlowCLI(fixture: fixture, wire: wire)
            #expect(try await cli.run("login", "--mvpd", "Dish", "--user", "carol", "--password", "carol123").status == 0)
            let cancel = try await cli.run("cancel")
            #expect(cancel.status != 0, "\(cancel)")
            #expect(cancel.errors.first?.contains("Already signed in") == true, "\(cancel)")
            // `--at login` without the provider is refused before anything runs.
            let refused = try await cli.run("cancel", "--at", "login")
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("--mvpd"), "\(refused)")
            #expect(refused.lines.isEmpty)
        }
    }

    @Test(.enabled(if: FlowCLI.binary != nil, FlowCLI.missingMessage), arguments: EntitlementProtocol.allCases)
    func checkAuthorizationNeverStartsALoginAndSelectedProviderNamesTheMVPD(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let cli = FlowCLI(fixture: fixture, wire: wire)
            let before = try await cli.run("check-authorization", "--resource", "news")
            #expect(before.status != 0, "\(before)")
            #expect(before.callbacks("displayProviderDialog").isEmpty)
            #expect(before.callbacks("navigateToUrl").isEmpty)
            #expect(before.callbacks("tokenRequestFailed").first?["errorCode"] as? String == ErrorCode.USER_NOT_AUTHENTICATED_ERROR)

            #expect(try await cli.run("login", "--mvpd", "Dish", "--user", "carol", "--password", "carol123").status == 0)
            let after = try await cli.run("check-authorization", "--resource", "news", "--resource", "sports")
            #expect(after.status == 0, "\(after)")
            #expect(Set(after.callbacks("setToken").compactMap { $0["resource"] as? String }) == ["news", "sports"])
            #expect(after.callbacks("displayProviderDialog").isEmpty)

            let selected = try await cli.run("selected-provider")
            #expect(selected.status == 0, "\(selected)")
            #expect((selected.callbacks("selectedProvider").first?["mvpd"] as? [String: Any])?["ID"] as? String == "Dish")
        }
    }

    @Test(.enabled(if: FlowCLI.binary != nil, FlowCLI.missingMessage), arguments: EntitlementProtocol.allCases)
    func forceAuthnSignsInAgainDespiteAValidLogin(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let cli = FlowCLI(fixture: fixture, wire: wire)
            let credentials = ["--mvpd", "Dish", "--user", "carol", "--password", "carol123"]
            #expect(try await cli.run(arguments: ["login"] + credentials).status == 0)
            // Without the flag the valid login answers at once.
            let cached = try await cli.run(arguments: ["login"] + credentials)
            #expect(cached.status == 0, "\(cached)")
            #expect(cached.callbacks("displayProviderDialog").isEmpty)
            #expect(cached.callbacks("navigateToUrl").isEmpty)
            let signInsBefore = fixture.service.signIns.count
            let forced = try await cli.run(arguments: ["login", "--force-authn"] + credentials)
            #expect(forced.status == 0, "\(forced)")
            #expect(forced.callbacks("setAuthenticationStatus").last?["status"] as? Int == 1)
            switch wire {
            case .sdk:
                // With it the SDK opens the known MVPD's login page again (no picker: the MVPD is remembered).
                #expect(forced.callbacks("navigateToUrl").count == 1)
                #expect((forced.callbacks("navigateToUrl").first?["url"] as? String)?.contains("mso_id=Dish") == true)
                #expect(fixture.service.signIns.count == signInsBefore + 1)
            case .restV2:
                // v2 offers no forced login: while the profile is valid the session answers authorize (docs/sdk.md)
                #expect(forced.callbacks("navigateToUrl").isEmpty, "\(forced)")
                #expect(forced.callbacks("displayProviderDialog").isEmpty)
                #expect(fixture.service.signIns.count == signInsBefore)
            }
        }
    }

    @Test(.enabled(if: FlowCLI.binary != nil, FlowCLI.missingMessage), arguments: EntitlementProtocol.allCases)
    func metadataPrintsTheBackendsJSONValueAndTheArgumentsAsPassed(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let cli = FlowCLI(fixture: fixture, wire: wire)
            #expect(try await cli.run("login", "--mvpd", "Dish", "--user", "carol", "--password", "carol123").status == 0)
            let rating = try await cli.run("metadata", "--key", "user", "--name", "maxRating")
            #expect(rating.status == 0, "\(rating)")
            let line = try #require(rating.callbacks("setMetadataStatus").first, "\(rating)")
            #expect(line["metadata"] as? [String: String] == ["MPAA": "R", "VCHIP": "TV-MA"])
            #expect(line["arguments"] as? [String: String] == ["opCode": "3", "user_metadata_name": "maxRating"])
            let type = try await cli.run("metadata", "--key", "user", "--name", "typeID")
            #expect(type.callbacks("setMetadataStatus").first?["metadata"] as? Int == 2, "\(type)")
        }
    }

    @Test(.enabled(if: FlowCLI.binary != nil, FlowCLI.missingMessage))
    func visitorIDTravelsWithEveryRequestAndTheBackendRecordsIt() async throws {
        try await SDKFixture.with { fixture in
            let cli = FlowCLI(fixture: fixture)
            let run = try await cli.run(
                "authorize", "--mvpd", "Dish", "--user", "carol", "--password", "carol123", "--resource", "news",
                "--visitor-id", "08721549381239875600123456789012345678", "--events")
            #expect(run.status == 0, "\(run)")
            // The app set it before setRequestor; every SDK request carried it, the configuration call included.
            let exchanges = run.lines.compactMap {
                ((($0["event"] as? [String: Any])?["kind"] as? [String: Any])?["httpExchange"] as? [String: Any])?["exchange"] as? [String: Any]
            }
            #expect(!exchanges.isEmpty, "\(run)")
            for exchange in exchanges {
                #expect((exchange["headers"] as? [String: String])?[PassConstants.HEADER_VISITOR_ID]
                    == "08721549381239875600123456789012345678", "\(exchange["url"] ?? "")")
            }
            // The backend recorded it with the sign-in and the authorization, under the user ID.
            let records = fixture.service.visitorRecords
            #expect(records.map(\.event) == [.signIn, .authorization])
            #expect(records.allSatisfy { $0.visitorID == "08721549381239875600123456789012345678" && $0.requestorID == "REF30" })
            #expect(records.last?.resource == "news")
            #expect(Set(records.map(\.userID)) == Set(fixture.service.signIns.map(\.guid)))

            // A value that cannot be a header is refused before anything runs.
            let bad = try await cli.run("check", "--visitor-id", "two words")
            #expect(bad.status != 0)
            #expect(bad.stderr.contains("--visitor-id"), "\(bad)")
        }
    }
}
