import Foundation
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// A registered app calling the REST v1 API: signs each call with the legacy HMAC header (or a bearer token).
struct RESTApp {
    let client: TestHTTPClient
    let service: BackendService
    var requestor = "REF30"
    var publicKey = "demo-public-key"
    var secret = "demo-secret-change-me"
    /// When set, calls carry `Authorization: Bearer …` instead of the HMAC header.
    var bearer: String?
    /// `request_uri` style: the full path (KODI-AP) or only its last segment (KODI-ESPN).
    var shortRequestURI = false

    func authorization(_ method: String, _ path: String) -> String {
        if let bearer { return "Bearer \(bearer)" }
        let uri = shortRequestURI ? "/" + (path.split(separator: "/").last.map(String.init) ?? "") : path
        return LegacyAuthorization.make(
            method: method, requestorID: requestor, requestURI: uri, publicKey: publicKey, secret: secret,
            nonce: UUID().uuidString, requestTime: EpochMilliseconds.from(service.now()))
    }

    func get(_ path: String, _ query: [(String, String)] = [], format: String = "json") async throws -> HTTPResult {
        try await client.get(url(path, query, format), headers: ["Authorization": authorization("GET", path)])
    }

    func delete(_ path: String, _ query: [(String, String)] = [], format: String = "json") async throws -> HTTPResult {
        try await client.delete(url(path, query, format), headers: ["Authorization": authorization("DELETE", path)])
    }

    func post(_ path: String, form: [(String, String)], format: String = "json") async throws -> HTTPResult {
        try await client.post(url(path, [], format), form: form, headers: ["Authorization": authorization("POST", path)])
    }

    func url(_ path: String, _ query: [(String, String)], _ format: String) -> String {
        let items = query + (format.isEmpty ? [] : [("format", format)])
        guard !items.isEmpty else { return path }
        return path + "?" + items.map { "\(TestHTTPClient.escape($0.0))=\(TestHTTPClient.escape($0.1))" }.joined(separator: "&")
    }

    /// Creates a registration code for `device` and returns it.
    func regcode(device: String, extra: [(String, String)] = []) async throws -> String {
        let answer = try await post("/reggie/v1/\(requestor)/regcode", form: [("deviceId", device)] + extra)
        #expect(answer.status == 201, "\(answer.text)")
        return answer.json["code"] as? String ?? ""
    }

    /// Signs in on the activation page, as a person with a second screen does, following the chain to the end.
    func activate(code: String, mvpd: String, username: String, password: String) async throws -> HTTPResult {
        let login = WebLogin(client: client)
        let picker = try await client.post("/activate", form: [("code", code)])
        #expect(picker.status == 200, "\(picker.text)")
        guard let href = WebLogin.capture(picker.text, #"href="([^"]*mso_id=\#(mvpd)[^"]*)""#) else {
            Issue.record("no \(mvpd) link on the provider page: \(picker.text)")
            return picker
        }
        let (page, _) = try await login.follow(href)
        let (end, _) = try await login.submit(page, username: username, password: password)
        return end
    }
}
