import AccessEnabler
import Foundation
import PassTestSupport
import Testing

/// `passconsole flow`, run as the built binary against a backend started by the test: JSON lines and exit codes.
///
/// The executable target cannot be imported, so these tests run `passconsole` (built next to the test bundle by
/// `swift build` / `swift test`) with `Process`. They are skipped when the binary is not there.
@Suite(.serialized) struct FlowCommandTests {
    @Test(.enabled(if: FlowCLI.binary != nil, FlowCLI.missingMessage), arguments: EntitlementProtocol.allCases)
    func authorizeLogsInAndTheLoginPersistsAcrossRuns(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let cli = FlowCLI(fixture: fixture, wire: wire)
            let authorize = try await cli.run(
                "authorize", "--mvpd", "Dish", "--user", "carol", "--password", "carol123", "--resource", "news")
            #expect(authorize.status == 0, "\(authorize)")
            #expect(authorize.callbacks("setRequestorComplete").first?["status"] as? Int == 1)
            #expect(authorize.callbacks("displayProviderDialog").count == 1)
            #expect(authorize.callbacks("navigateToUrl").count == 1)
            #expect(authorize.callbacks("setAuthenticationStatus").contains { $0["status"] as? Int == 1 })
            let token = try #require(authorize.callbacks("setToken").first, "\(authorize)")
            #expect(token["resource"] as? String == "news")
            #expect((token["token"] as? String)?.isEmpty == false)
            #expect(authorize.callbacks("sendTrackingData").contains { $0["event"] as? String == "authorizationDetection" })
            #expect(authorize.errors.isEmpty)

            // A second run on the same --device finds the login: the storage persisted.
            let check = try await cli.run("check")
            #expect(check.status == 0, "\(check)")
            #expect(check.callbacks("setAuthenticationStatus").map { $0["status"] as? Int } == [1])
            #expect(check.callbacks("displayProviderDialog").isEmpty)

            // Another app of the same team and bundle-ID prefix on that phone shares the login (iOS team storage); on
            // REST API v2 nothing is shared on the device and a profile is its registered client's: it signs in itself.
            let sibling = try await cli.run("check", "--bundle-id", "com.example.news.watch")
            #expect(sibling.status == (wire == .sdk ? 0 : 1), "\(sibling)")
        }
    }

    /// Issue #17 B.0, the reproduction as written: REF30 signs in with DISH, then SPORTS1 (same team, same bundle-ID
    /// prefix, same device) authorizes `sports` without a login — it failed with "The token was issued to Programmer
    /// REF30, not to SPORTS1" while `flow check` answered 1.
    @Test(.enabled(if: FlowCLI.binary != nil, FlowCLI.missingMessage))
    func aDishSignInUnderOneProgrammerAuthorizesAnotherProgrammerOnTheSamePhone() async throws {
        try await SDKFixture.with { fixture in
            let cli = FlowCLI(fixture: fixture)
            let news = try await cli.run(
                "authorize", "--requestor", "REF30", "--mvpd", "Dish", "--user", "carol", "--password", "carol123",
                "--resource", "news", "--platform", "ios", "--bundle-id", "com.example.news.ios", "--team", "TEAM1234")
            #expect(news.status == 0, "\(news)")
            let sports = try await cli.run(
                "authorize", "--requestor", "SPORTS1", "--resource", "sports", "--bundle-id", "com.example.news.sports",
                "--team", "TEAM1234")
            #expect(sports.status == 0, "\(sports)")
            #expect(sports.callbacks("displayProviderDialog").isEmpty && sports.callbacks("navigateToUrl").isEmpty)
            #expect(sports.callbacks("tokenRequestFailed").isEmpty, "\(sports)")
            #expect(sports.callbacks("setToken").first?["resource"] as? String == "sports", "\(sports)")
            // And it stays so: the check agrees with the authorization, run after run
            for _ in 0..<2 {
                let check = try await cli.run("check", "--requestor", "SPORTS1", "--bundle-id", "com.example.news.sports", "--team", "TEAM1234")
                #expect(check.callbacks("setAuthenticationStatus").map { $0["status"] as? Int } == [1], "\(check)")
            }
        }
    }

    /// Issue #17 B.4 from the command line: `--sdk-release 1.7` keeps the sign-in of an app of the same team with
    /// another bundle-ID prefix; 1.8 (the default) wipes it.
    @Test(.enabled(if: FlowCLI.binary != nil, FlowCLI.missingMessage))
    func theSDKReleaseDecidesWhetherAnotherPrefixWipesTheSignIn() async throws {
        try await SDKFixture.with { fixture in
            let cli = FlowCLI(fixture: fixture)
            func status(_ result: FlowCLI.Result) -> [Int?] { result.callbacks("setAuthenticationStatus").map { $0["status"] as? Int } }
            let login = try await cli.run("login", "--mvpd", "Dish", "--user", "carol", "--password", "carol123", "--sdk-release", "1.7")
            #expect(login.status == 0, "\(login)")
            #expect(status(try await cli.run("check", "--bundle-id", "com.other.sports.app", "--sdk-release", "1.7")) == [0])
            #expect(status(try await cli.run("check", "--sdk-release", "1.7")) == [1], "1.7 left it")
            #expect(status(try await cli.run("check", "--bundle-id", "com.other.sports.app")) == [0])
            #expect(status(try await cli.run("check")) == [0], "1.8 wiped it")
            let bad = try await cli.run("check", "--sdk-release", "2.0")
            #expect(bad.status != 0)
        }
    }

    /// Every demo MVPD page shape (SAML redirect, SAML POST with Resume, OAuth with meta refresh, SAML POST with
    /// UserName) signs in from the command line.
    @Test(.enabled(if: FlowCLI.binary != nil, FlowCLI.missingMessage), arguments: MVPDLoginShapeTests.shapes, EntitlementProtocol.allCases)
    func authorizeSignsInWithEveryDemoMVPDShape(_ shape: MVPDLoginShapeTests.Shape, _ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let result = try await FlowCLI(fixture: fixture, wire: wire).run(
                "authorize", "--requestor", shape.requestor, "--mvpd", shape.mvpd, "--user", shape.username,
                "--password", shape.password, "--resource", shape.resource)
            #expect(result.status == 0, "\(result)")
            #expect(result.callbacks("setAuthenticationStatus").contains { $0["status"] as? Int == 1 })
            #expect(result.callbacks("setToken").first?["resource"] as? String == shape.resource, "\(result)")
        }
    }

    @Test(.enabled(if: FlowCLI.binary != nil, FlowCLI.missingMessage), arguments: EntitlementProtocol.allCases)
    func authorizingAResourceTheSubscriberIsNotEntitledToFails(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let result = try await FlowCLI(fixture: fixture, wire: wire).run(
                "authorize", "--mvpd", "Dish", "--user", "dave", "--password", "dave123", "--resource", "premium-drama")
            #expect(result.status != 0, "\(result)")
            #expect(result.callbacks("setAuthenticationStatus").contains { $0["status"] as? Int == 1 })
            let failed = try #require(result.callbacks("tokenRequestFailed").first, "\(result)")
            #expect(failed["resource"] as? String == "premium-drama")
            #expect(failed["errorCode"] as? String == "User Not Authorized Error")
            #expect(result.callbacks("setToken").isEmpty)
        }
    }

    @Test(.enabled(if: FlowCLI.binary != nil, FlowCLI.missingMessage), arguments: EntitlementProtocol.allCases)
    func logoutEndsTheLoginForTheNextRun(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let cli = FlowCLI(fixture: fixture, wire: wire)
            let login = try await cli.run("login", "--mvpd", "Dish", "--user", "carol", "--password", "carol123")
            #expect(login.status == 0, "\(login)")
            #expect(login.callbacks("setAuthenticationStatus").last?["status"] as? Int == 1)

            let logout = try await cli.run("logout")
            #expect(logout.status == 0, "\(logout)")
            #expect(logout.callbacks("navigateToUrl").count == 1)
            #expect(logout.callbacks("setAuthenticationStatus").last?["status"] as? Int == 0)

            let check = try await cli.run("check")
            #expect(check.status != 0, "\(check)")
            #expect(check.callbacks("setAuthenticationStatus").map { $0["status"] as? Int } == [0])
        }
    }

    @Test(.enabled(if: FlowCLI.binary != nil, FlowCLI.missingMessage), arguments: EntitlementProtocol.allCases)
    func thePickerWithoutMvpdIsAnError(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let result = try await FlowCLI(fixture: fixture, wire: wire).run("login", "--user", "carol", "--password", "carol123")
            #expect(result.status != 0, "\(result)")
            #expect(result.callbacks("displayProviderDialog").count == 1)
            #expect(result.errors.first?.contains("--mvpd") == true, "\(result)")
        }
    }

    @Test(.enabled(if: FlowCLI.binary != nil, FlowCLI.missingMessage), arguments: EntitlementProtocol.allCases)
    func metadataAndEventsPrintJSONLines(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let result = try await FlowCLI(fixture: fixture, wire: wire).run("metadata", "--key", "device", "--events")
            #expect(result.status == 0, "\(result)")
            let metadata = try #require(result.callbacks("setMetadataStatus").first, "\(result)")
            #expect((metadata["metadata"] as? String)?.count == 64)
            #expect(metadata["key"] as? Int == 2)
            #expect(!result.lines.filter { $0["event"] != nil }.isEmpty)
        }
    }
}

/// Runs the `passconsole` binary's `flow` subcommands against a fixture's backend and device folder.
struct FlowCLI {
    let backend: String
    let device: String
    /// `--protocol`: the seeds' (the default, not passed) or REST API v2.
    let wire: EntitlementProtocol

    init(fixture: SDKFixture, wire: EntitlementProtocol = .sdk) {
        backend = fixture.baseURL
        device = fixture.folder.root.path
        self.wire = wire
    }

    /// What one run printed and how it ended.
    struct Result: CustomStringConvertible {
        var status: Int32
        var stdout: String
        var stderr: String

        /// Every stdout line parsed as a JSON object.
        var lines: [[String: Any]] {
            stdout.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }
        }

        /// The lines of callback `name`, in order.
        func callbacks(_ name: String) -> [[String: Any]] { lines.filter { $0["callback"] as? String == name } }

        /// The `{"error": …}` lines' messages.
        var errors: [String] { lines.compactMap { $0["error"] as? String } }

        var description: String { "exit \(status)\nstdout:\n\(stdout)\nstderr:\n\(stderr)" }
    }

    /// `passconsole flow <arguments> [--protocol v2] --backend … --device …`.
    func run(_ arguments: String...) async throws -> Result { try await run(arguments: arguments) }

    /// ``run(_:)`` with the arguments as an array.
    func run(arguments: [String]) async throws -> Result {
        let binary = try #require(Self.binary, Self.missingMessage)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("flow-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("stdout")
        let err = scratch.appendingPathComponent("stderr")
        let process = try ChildProcess(
            binary.path(percentEncoded: false),
            // A guard against a hung flow, not a speed bound: a loaded machine once took past 20 s.
            ["flow"] + arguments + (wire == .sdk ? [] : ["--protocol", wire.rawValue])
                + ["--backend", backend, "--device", device, "--timeout", String(Int(TestTime.seconds(60)))],
            stdout: .file(out), stderr: .file(err))
        let status = await process.exited()
        return Result(
            status: status, stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }

    /// The built `passconsole` (see ``BuiltBinary``).
    static let binary: URL? = BuiltBinary.passconsole

    static let missingMessage = Comment(rawValue: BuiltBinary.missingMessage)
}
