import Foundation
import MicroHTTP
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// Demo subscribers from Config/demo.json.
enum Demo {
    struct Account: Sendable {
        var mvpd: String
        var username: String
        var password: String
    }

    /// Optimum (authentication per requestor, passive authentication): news, sports, kids.
    static let alice = Account(mvpd: "Cablevision", username: "alice", password: "alice123")
    /// Spectrum: news, movies, kids.
    static let bob = Account(mvpd: "Spectrum", username: "bob", password: "bob123")
    /// DISH: everything.
    static let carol = Account(mvpd: "Dish", username: "carol", password: "carol123")

    static let device = "3f1c0a9e8b7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170615e4d3"
    static let otherDevice = "a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1"
}

/// The native SDK's calls as AccessEnabler makes them (spec §5.2.4–5.2.7): form posts under `{sp}`.
struct SDKClient {
    let client: TestHTTPClient
    var prefix = "/adobe-services/1.0"

    func sessionDevice(requestor: String, device: String) async throws -> HTTPResult {
        try await client.post("\(prefix)/sessionDevice",
            form: [("_method", "GET"), ("requestor_id", requestor), ("device_id", device)])
    }

    /// Signs `account` in through the web login, then fetches the authN token as the SDK does.
    func signIn(_ account: Demo.Account, requestor: String = "REF30", device: String = Demo.device) async throws
        -> String
    {
        let end = try await WebLogin(client: client).login(
            requestor: requestor, mvpd: account.mvpd, device: device, username: account.username,
            password: account.password)
        try #require(end == PassConstants.ADOBEPASS_REDIRECT_URL, "web login did not reach the app")
        let answer = try await sessionDevice(requestor: requestor, device: device)
        try #require(answer.status == 200, "sessionDevice: \(answer.status) \(answer.text)")
        return try SDKResponses.parseAuthnToken(answer.text)
    }

    func authorize(requestor: String = "REF30", device: String = Demo.device, resource: String, authn: String)
        async throws -> HTTPResult
    {
        try await client.post("\(prefix)/authorizeDevice", form: [
            ("resource_id", resource), ("requestor_id", requestor), ("device_id", device), ("userMeta", "1"),
            ("authentication_token", authn),
        ])
    }

    /// The authZ token for `resource`, requiring the backend to grant it.
    func authzToken(requestor: String = "REF30", device: String = Demo.device, resource: String, authn: String)
        async throws -> String
    {
        let answer = try await authorize(requestor: requestor, device: device, resource: resource, authn: authn)
        try #require(answer.status == 200, "authorizeDevice: \(answer.status) \(answer.text)")
        return try SDKResponses.parseAuthzToken(answer.text)
    }

    func shortAuthorize(requestor: String = "REF30", device: String = Demo.device, authz: String,
                        resource: String? = nil) async throws -> HTTPResult
    {
        var form = [("authz_token", authz), ("requestor_id", requestor), ("device_id", device),
                    ("hashed_guid", "false")]
        if let resource { form.append(("resource_id", resource)) }
        return try await client.post("\(prefix)/deviceShortAuthorize", form: form)
    }

    /// Sign-in, authorization and media token for `resource`, as one playback start.
    func mediaToken(_ account: Demo.Account = Demo.alice, resource: String) async throws -> String {
        let authn = try await signIn(account)
        let authz = try await authzToken(resource: resource, authn: authn)
        let answer = try await shortAuthorize(authz: authz)
        try #require(answer.status == 200, "deviceShortAuthorize: \(answer.status) \(answer.text)")
        return answer.text
    }

    func preauthorize(requestor: String = "REF30", device: String?, resources: [String], authn: String)
        async throws -> HTTPResult
    {
        var form = [("authentication_token", authn), ("requestor_id", requestor)]
        if let device { form.append(("device_id", device)) }
        form += resources.map { ("resource_id", $0) }
        return try await client.post("\(prefix)/preauthorize", form: form)
    }

    /// The token with its device binding rewritten for `other`: what a client copying tokens between devices
    /// would try. The signature no longer matches the body.
    static func rebound(_ serialized: String, from device: String, to other: String) -> String {
        serialized.replacingOccurrences(
            of: DeviceFingerprint.make(deviceID: device), with: DeviceFingerprint.make(deviceID: other))
    }
}

/// The `/admin` controls and the `/verify` media token verifier.
struct AdminClient {
    let client: TestHTTPClient

    @discardableResult
    func setFaults(_ faults: FaultSettings) async throws -> HTTPResult {
        let answer = try await client.send("PUT", "/admin/faults", headers: ["Content-Type": "application/json"],
            body: try JSONEncoder().encode(faults))
        try #require(answer.status == 200, "PUT /admin/faults: \(answer.status) \(answer.text)")
        return answer
    }

    @discardableResult
    func addRule(_ rule: FaultRule) async throws -> HTTPResult {
        let answer = try await client.post("/admin/faults/rules", json: try JSONEncoder().encode(rule))
        try #require(answer.status == 200, "POST /admin/faults/rules: \(answer.status) \(answer.text)")
        return answer
    }

    /// Verifies a media token as a Programmer's playback server would.
    func verify(_ token: String, resource: String? = nil) async throws -> HTTPResult {
        var form = [("token", token)]
        if let resource { form.append(("resource", resource)) }
        return try await client.post("/verify", form: form)
    }
}
