import Foundation
import PassProtocol

/// The Clientless REST v1 calls the tvOS SDK makes for the second screen (spec §5.4, §7): create a registration
/// code, poll for the sign-in made with it, check it, free it.
///
/// Every call carries the legacy HMAC `Authorization` header (spec §5.4.2) made from the `secret` and `publicKey`
/// the app gave `setRequestor`, and asks for JSON (`format=json`). Failures are ``SDKClient/Failure`` values, so
/// the engine judges both protocols the same way.
struct RESTClient: Sendable {
    /// What signs the calls: the requestor and the key pair registered for the app.
    struct Credentials: Sendable {
        var requestorID: String
        var publicKey: String
        var secret: String
    }

    /// The REST host's origin, e.g. `http://127.0.0.1:8081` (no path).
    let base: URL
    let credentials: Credentials
    let transport: HTTPTransport
    /// The clock `request_time` is taken from: the server refuses times too far from its own (spec §5.4.2).
    let now: @Sendable () -> Date
    /// A fresh nonce per request; the server refuses a nonce it has seen.
    var nonce: @Sendable () -> String = { UUID().uuidString.lowercased() }

    typealias Failure = SDKClient.Failure

    /// The REST origin for a service provider base: its scheme, host and port, without `/adobe-services`.
    ///
    /// Adobe serves the SDK protocol and REST on different hosts (`sp.auth.adobe.com`, `api.auth.adobe.com`,
    /// spec §5.1, `API_PRODUCTION`); the stand-in backend serves both on one, so only an `sp.` host is renamed.
    static func origin(of serviceProvider: URL) -> URL {
        var components = URLComponents()
        components.scheme = serviceProvider.scheme ?? "https"
        components.host = serviceProvider.host
        components.port = serviceProvider.port
        if let host = components.host, host.hasPrefix("sp.auth") { components.host = "api" + host.dropFirst(2) }
        return components.url ?? serviceProvider
    }

    /// Where a person types the code on their second screen.
    var activationURL: String { base.absoluteString + "/activate" }

    // MARK: - Calls

    /// `POST /reggie/v1/{requestor}/regcode` (spec §5.4.3 #1): a code for this device, valid `ttl` seconds.
    nonisolated(nonsending) func createRegcode(deviceID: String, mvpdID: String, ttl: Int) async throws(Failure) -> RegistrationCode {
        let path = "/reggie/v1/\(credentials.requestorID)/regcode"
        let form = [("deviceId", deviceID), ("mvpd", mvpdID), ("ttl", String(ttl)), ("format", "json")]
        let answer = try await call { try await transport.post(url(path), form: form, headers: sign("POST", path)) }
        guard answer.status == 201 || answer.status == 200 else { throw failure(answer) }
        do { return try RegistrationCode.decode(json: Data(answer.body.utf8)) } catch {
            throw .malformed(error.description)
        }
    }

    /// What `tokens/authn` says about this device.
    enum AuthNState: Sendable, Equatable {
        /// Someone signed in for this device (`200`).
        case signedIn(AuthNTokenResponse)
        /// No authentication yet (`404`).
        case notSignedIn
        /// An authentication exists but has expired (`410`).
        case gone
    }

    /// `GET /api/v1/tokens/authn` (spec §5.4.3 #8): whether this device is signed in for the requestor.
    nonisolated(nonsending) func authNToken(deviceID: String) async throws(Failure) -> AuthNState {
        let path = "/api/v1/tokens/authn"
        let query = [("requestor", credentials.requestorID), ("deviceId", deviceID), ("format", "json")]
        let answer = try await call { try await transport.get(url(path), query: query, headers: sign("GET", path)) }
        switch answer.status {
        case 200:
            do { return .signedIn(try AuthNTokenResponse.decode(json: Data(answer.body.utf8))) } catch {
                throw .malformed(error.description)
            }
        case 404: return .notSignedIn
        case 410: return .gone
        default: throw failure(answer)
        }
    }

    /// `GET /reggie/v1/{requestor}/regcode/{code}` (spec §5.4.3 #2): `true` while the code is live, `false` once
    /// it has expired (`410`) or is unknown (`404`).
    nonisolated(nonsending) func regcodeIsLive(_ code: String) async throws(Failure) -> Bool {
        let path = "/reggie/v1/\(credentials.requestorID)/regcode/\(code)"
        let answer = try await call {
            try await transport.get(url(path), query: [("format", "json")], headers: sign("GET", path))
        }
        switch answer.status {
        case 200: return true
        case 404, 410: return false
        default: throw failure(answer)
        }
    }

    /// `DELETE /reggie/v1/{requestor}/regcode/{code}` (spec §5.4.3 #3): frees the code; a code already gone counts
    /// as freed.
    nonisolated(nonsending) func deleteRegcode(_ code: String) async throws(Failure) {
        let path = "/reggie/v1/\(credentials.requestorID)/regcode/\(code)"
        let answer = try await call {
            try await transport.delete(url(path), query: [("format", "json")], headers: sign("DELETE", path))
        }
        guard (200..<300).contains(answer.status) || answer.status == 404 else { throw failure(answer) }
    }

    // MARK: - Helpers

    private func url(_ path: String) -> URL { URL(string: base.absoluteString + path)! }

    /// The legacy HMAC header for one request; `request_uri` is the full path (KODI-AP's style).
    private func sign(_ method: String, _ path: String) -> [String: String] {
        let header = LegacyAuthorization.make(
            method: method, requestorID: credentials.requestorID, requestURI: path, publicKey: credentials.publicKey,
            secret: credentials.secret, nonce: nonce(), requestTime: EpochMilliseconds.from(now()))
        return ["Authorization": header]
    }

    /// Sends one request in a task of its own. Cancelling the caller (the poll task, on `setSelectedProvider(nil)`)
    /// must not cancel the URLSession task in flight: on Linux that can trap inside FoundationNetworking ("Trying
    /// to access a behaviour for a task that in not in the registry", swift-corelibs-foundation #3296). The request
    /// finishes instead, and the poll loop sees the cancel when it checks its state.
    private nonisolated(nonsending) func call(_ body: @escaping @Sendable () async throws -> HTTPTransport.Answer) async throws(Failure)
        -> HTTPTransport.Answer
    {
        let result = await Task { () -> Result<HTTPTransport.Answer, Failure> in
            do { return .success(try await body()) } catch let error as HTTPTransport.Unreachable {
                return .failure(.unreachable(error.reason))
            } catch {
                return .failure(.unreachable("\(error)"))
            }
        }.value
        return try result.get()
    }

    /// A REST error answer: `details` (or `message`) from its JSON body `{status, message, details}`.
    private func failure(_ answer: HTTPTransport.Answer) -> Failure {
        let error = try? RESTError.decode(json: Data(answer.body.utf8))
        return .status(answer.status, details: error.map { $0.details ?? $0.message }, code: nil)
    }
}
