import Foundation
import PassProtocol

/// The native SDK protocol (spec §5.2) from the client side: each call returns a decoded answer or a
/// ``SDKClient/Failure`` that says which of the seeds' error cases happened.
struct SDKClient: Sendable {
    /// The service provider base, e.g. `http://127.0.0.1:8081/adobe-services`.
    let base: URL
    let transport: HTTPTransport
    let platform: Platform

    enum Failure: Error, Sendable, Equatable {
        /// No answer (refused, timeout).
        case unreachable(String)
        /// The server answered with an error status; `details` from its `<error><details>`, `code` from
        /// `Authzf-Error-Code`.
        case status(Int, details: String?, code: String?)
        /// The answer could not be read.
        case malformed(String)
    }

    var sp: URL { base.appendingPathComponent("1.0") }

    private func url(_ endpoint: SDKEndpoint, _ suffix: String = "") -> URL {
        URL(string: sp.absoluteString + endpoint.rawValue + suffix)!
    }

    // MARK: - Calls

    nonisolated(nonsending) func configuration(requestorID: String) async throws(Failure) -> RequestorConfiguration {
        let answer = try await call { try await transport.get(url(.config, requestorID), query: [("client_type", platform.rawValue)]) }
        guard answer.status == 200 else { throw failure(answer) }
        do { return try RequestorConfiguration.parse(xml: answer.body) } catch { throw .malformed("\(error)") }
    }

    enum Session: Sendable, Equatable {
        case token(String, userMeta: String?)
        case pendingLogout
    }

    nonisolated(nonsending) func sessionDevice(requestorID: String, deviceID: String) async throws(Failure) -> Session {
        let answer = try await call {
            try await transport.post(url(.sessionDevice), form: [("_method", "GET"), ("requestor_id", requestorID), ("device_id", deviceID)])
        }
        guard answer.status == 200 else { throw failure(answer) }
        if HTMLText.range(of: "<pendingLogout", in: answer.body[...]) != nil { return .pendingLogout }
        do {
            let (token, userMeta) = try SDKResponses.parseAuthnAnswer(answer.body)
            return .token(token, userMeta: userMeta)
        } catch { throw .malformed("\(error)") }
    }

    nonisolated(nonsending) func authorizeDevice(requestorID: String, mvpdID: String, deviceID: String, resource: String, authnToken: String, genericData: String?)
        async throws(Failure) -> String
    {
        var form = [("resource_id", resource), ("requestor_id", requestorID), ("mso_id", mvpdID), ("device_id", deviceID),
                    ("userMeta", "1"), ("authentication_token", authnToken)]
        if let genericData { form.append(("generic_data", genericData)) }
        let answer = try await call { try await transport.post(url(.authorizeDevice), form: form) }
        guard answer.status == 200 else { throw failure(answer) }
        do { return try SDKResponses.parseAuthzToken(answer.body) } catch { throw .malformed("\(error)") }
    }

    nonisolated(nonsending) func shortAuthorize(requestorID: String, mvpdID: String, deviceID: String, sessionGUID: String, authzToken: String)
        async throws(Failure) -> String
    {
        let form = [("session_guid", sessionGUID), ("hashed_guid", "false"), ("authz_token", authzToken),
                    ("requestor_id", requestorID), ("mso_id", mvpdID), ("device_id", deviceID)]
        let answer = try await call { try await transport.post(url(.deviceShortAuthorize), form: form) }
        guard answer.status == 200 else { throw failure(answer) }
        guard answer.body.hasPrefix("<signatureInfo>") else { throw .malformed("the media token does not start with <signatureInfo>") }
        return answer.body
    }

    nonisolated(nonsending) func preauthorize(requestorID: String, deviceID: String, resources: [String], authnToken: String) async throws(Failure)
        -> PreauthorizationResponse
    {
        let form = [("authentication_token", authnToken), ("requestor_id", requestorID), ("device_id", deviceID)]
            + resources.map { ("resource_id", $0) }
        let answer = try await call { try await transport.post(url(.preauthorize), form: form) }
        guard answer.status == 200 else { throw failure(answer) }
        do { return try SDKResponses.parsePreauthorize(answer.body) } catch { throw .malformed("\(error)") }
    }

    // MARK: - URLs the web view loads

    func loginURL(requestorID: String, mvpdID: String, deviceID: String, redirectURL: String, passive: Bool = false, genericData: String? = nil)
        -> String
    {
        var query = [("domain_name", PassConstants.SP_URL_DOMAIN_NAME), ("noflash", "true"), ("no_iframe", "true"), ("mso_id", mvpdID),
                     ("requestor_id", requestorID), ("device_id", deviceID), ("redirect_url", redirectURL),
                     ("client_type", platform.clientType), ("client_version", AccessEnabler.version)]
        if passive { query.append(("passive", "true")) }
        if let genericData { query.append(("generic_data", genericData)) }
        return url(.authenticate).absoluteString + "?" + HTTPTransport.encode(query)
    }

    func logoutURL(requestorID: String?, mvpdID: String?, deviceID: String, redirectURL: String) -> String {
        var query = [("noflash", "true"), ("device_id", deviceID), ("redirect_url", redirectURL)]
        if let mvpdID { query.insert(("mso_id", mvpdID), at: 1) }
        if let requestorID { query.insert(("requestor_id", requestorID), at: 1) }
        return url(.logout).absoluteString + "?" + HTTPTransport.encode(query)
    }

    // MARK: - Helpers

    private nonisolated(nonsending) func call(_ body: () async throws -> HTTPTransport.Answer) async throws(Failure) -> HTTPTransport.Answer {
        do { return try await body() } catch let error as HTTPTransport.Unreachable { throw .unreachable(error.reason) } catch {
            throw .unreachable("\(error)")
        }
    }

    private func failure(_ answer: HTTPTransport.Answer) -> Failure {
        .status(answer.status, details: SDKResponses.parseError(answer.body), code: answer.headers["authzf-error-code"])
    }
}
