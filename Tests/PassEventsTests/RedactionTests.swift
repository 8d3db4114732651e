import Foundation
import Testing
@testable import PassEvents

/// ``EntitlementEvent/redacted()``: the one rule the SDK and the console's ingest share.
struct RedactionTests {
    static let token = "<signatureInfo>" + String(repeating: "MEUCIQ", count: 12) + "<signatureInfo><simpleAuthenticationToken>…"

    static func exchange(_ exchange: HTTPExchange) -> EntitlementEvent {
        EntitlementEvent(sequence: 1, timestamp: Date(timeIntervalSinceReferenceDate: 0), sessionID: UUID(), deviceID: "d",
            app: AppIdentity(bundleID: "com.example.news.ios", teamID: "TEAM1234"), requestorID: "REF30", mvpdID: nil,
            kind: .httpExchange(exchange: exchange))
    }

    static func redactedExchange(_ event: EntitlementEvent) throws -> HTTPExchange {
        guard case .httpExchange(let exchange) = event.redacted().kind else { throw CancellationError() }
        return exchange
    }

    @Test("a password field is hidden whole, whatever its name's case; other fields are kept")
    func passwords() throws {
        let event = Self.exchange(HTTPExchange(method: "POST", url: "http://x/login",
            parameters: ["username": "alice", "Password": "correct horse battery staple", "user_passwd": "x"], status: 302,
            responseBody: nil, failure: nil, durationMs: 1))
        let exchange = try Self.redactedExchange(event)
        #expect(exchange.parameters == ["username": "alice", "Password": "[redacted]", "user_passwd": "[redacted]"])
    }

    @Test("each demo MVPD's login form: the password hidden whatever the MVPD calls it, a SAML assertion shortened")
    func mvpdLoginFields() throws {
        let assertion = String(repeating: "PHNhbWxwOlJlc3BvbnNl", count: 8)
        let event = Self.exchange(HTTPExchange(method: "POST", url: "http://x/mvpd/Spectrum/login",
            parameters: ["IDToken1": "bob", "IDToken2": "bob123", "j_password": "alice123", "UserPassword": "erin123",
                "SAMLResponse": assertion], status: 302, responseBody: nil, failure: nil, durationMs: 1))
        let exchange = try Self.redactedExchange(event)
        #expect(exchange.parameters["IDToken1"] == "bob")
        #expect(exchange.parameters["IDToken2"] == "[redacted]")
        #expect(exchange.parameters["j_password"] == "[redacted]")
        #expect(exchange.parameters["UserPassword"] == "[redacted]")
        #expect(exchange.parameters["SAMLResponse"]?.hasPrefix(String(assertion.prefix(16))) == true)
        #expect(exchange.parameters["SAMLResponse"]?.contains("[redacted") == true)
        // (the user-name fields are personal data in exports: PersonalDataRedactionTests)
    }

    @Test("a full token is shortened in a field, a header, a query, and cut from a raw or Base64 body")
    func tokens() throws {
        let base64 = Data(Self.token.utf8).base64EncodedString()
        let query = Self.token.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let event = Self.exchange(HTTPExchange(method: "GET", url: "http://x/authorize?authentication_token=\(query)&resource=news",
            parameters: ["authentication_token": Self.token], headers: ["authorization": "Bearer " + Self.token], status: 200,
            responseBody: #"{"serializedToken":"\#(base64)"}"#, failure: nil, durationMs: 1))
        let exchange = try Self.redactedExchange(event)
        let kept = "\(exchange)"
        #expect(!kept.contains("MEUCIQMEUCIQ"))
        #expect(!kept.contains(base64))
        #expect(exchange.parameters["authentication_token"]?.hasSuffix("chars]") == true)
        #expect(exchange.url.contains("resource=news"))
        #expect(exchange.responseBody == #"{"serializedToken":"[token redacted]"#)
    }

    @Test("redacting twice changes nothing more (the console redacts what the SDK already did)")
    func idempotent() {
        let event = Self.exchange(HTTPExchange(method: "POST", url: "http://x/authorize?authentication_token=\(String(repeating: "a", count: 40))",
            parameters: ["authentication_token": Self.token, "password": "p"], headers: ["Authorization": "Bearer " + Self.token],
            status: 200, responseBody: "a" + Self.token, failure: nil, durationMs: 1))
        let once = event.redacted()
        #expect(once != event)
        #expect(once.redacted() == once)
    }
}

extension RedactionTests {
    /// The byte check before parsing a query never lets a secret through: every secret name, in any case or
    /// percent-encoded, is still shortened; a query naming none is left as it is.
    @Test func theQuicklyCheckedQueryStillRedactsEverySecretName() {
        let value = String(repeating: "S3cr3tValue", count: 4)
        let names = ["authentication_token", "authz_token", "secret", "client_secret", "signature", "password", "SAMLResponse",
                     "IDToken2", "user_passwd", "j_password"]
        for name in names {
            for spelling in [name, name.uppercased(), "%" + String(format: "%02X", name.utf8.first!) + name.dropFirst()] {
                let url = "http://x/a?ok=1&\(spelling)=\(value)"
                let redacted = EntitlementEvent.redactQuery(url)
                #expect(!redacted.contains(value), "\(spelling) was not redacted: \(redacted)")
            }
        }
        #expect(EntitlementEvent.redactQuery("http://x/a?requestor=REF30&deviceId=d&resource=news") == "http://x/a?requestor=REF30&deviceId=d&resource=news")
    }

    @Test("REST API v2: the software statement sent, the client secret and access token answered are shortened; the rest kept")
    func restV2Secrets() throws {
        let statement = "eyJhbGciOiJSUzI1NiIsImtpZCI6ImI5ZTNkMmM3LTIyNDgt"
        let secret = "0f6b2c1d9a8e4f7b0f6b2c1d9a8e4f7b0f6b2c1d9a8e4f7b"
        let token = "7a1c3e5b9d0f2a4c6e8b0d2f4a6c8e0b2d4f6a8c0e2b4d6f"
        let register = Self.exchange(HTTPExchange(method: "POST", url: "http://x/o/client/register",
            parameters: ["software_statement": statement], status: 201,
            responseBody: #"{"client_id":"c-1","client_secret" : "\#(secret)","grant_types":["client_credentials"]}"#,
            failure: nil, durationMs: 1))
        let registered = try Self.redactedExchange(register)
        #expect(registered.parameters["software_statement"] == String(statement.prefix(16)) + "…[redacted \(statement.count) chars]")
        #expect(registered.responseBody?.contains(secret) == false)
        #expect(registered.responseBody?.contains(#""client_secret" : "\#(secret.prefix(16))…[redacted \#(secret.count) chars]""#) == true)
        #expect(registered.responseBody?.contains(#""client_id":"c-1""#) == true)
        let issued = Self.exchange(HTTPExchange(method: "POST", url: "http://x/o/client/token",
            parameters: ["grant_type": "client_credentials", "client_id": "c-1", "client_secret": secret], status: 201,
            responseBody: #"{"access_token":"\#(token)","expires_in":21600,"token_type":"bearer"}"#, failure: nil, durationMs: 1))
        let kept = try Self.redactedExchange(issued)
        #expect(kept.parameters["client_secret"]?.contains(secret) == false)
        #expect(kept.parameters["client_id"] == "c-1")
        #expect(kept.responseBody == #"{"access_token":"\#(token.prefix(16))…[redacted \#(token.count) chars]","expires_in":21600,"token_type":"bearer"}"#)
        // Idempotent: the console redacts what the SDK already did
        #expect(try Self.redactedExchange(Self.exchange(kept)) == kept)
    }
}
