import Foundation
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// `loginPage` in `Config/demo.json`: every key optional, field names checked when the file is read, and the SP
/// refuses an MVPD's answer that arrives after it expired.
struct MVPDLoginPageConfigTests {
    func load(_ mvpd: String) throws -> BackendConfiguration {
        let json = #"{"programmers": [{"id": "P", "mvpds": ["M"]}], "mvpds": [\#(mvpd)]}"#
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loginpage-\(UUID().uuidString).json").path
        _ = FileManager.default.createFile(atPath: path, contents: Data(json.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try BackendConfiguration.load(path: path)
    }

    @Test func leftOutKeysAreTheRedirectShapeWithUsernameAndPassword() throws {
        #expect(try load(#"{"id": "M"}"#).mvpds[0].loginPage == MVPDLoginPage())
        let page = try load(#"{"id": "M", "loginPage": {"flow": "oauth", "usernameField": "UserName", "passwordField": "UserPassword"}}"#)
            .mvpds[0].loginPage
        #expect(page == MVPDLoginPage(flow: .oauth, usernameField: "UserName", passwordField: "UserPassword", intermediate: .none))
        #expect(page.summary == "OAuth · UserName/UserPassword")
    }

    @Test(arguments: [
        (#""usernameField": "user name""#, "not a form field name"),
        (#""passwordField": """#, "not a form field name"),
        (#""usernameField": "RelayState""#, "the sign-in pages use themselves"),
        (#""usernameField": "pin", "passwordField": "pin""#, "for both fields"),
        (#""flow": "saml""#, "not a valid backend configuration"),
        (#""intermediate": "captcha""#, "not a valid backend configuration"),
    ])
    func aBadLoginPageIsRefusedWhenTheFileIsRead(keys: String, reason: String) throws {
        do {
            _ = try load(#"{"id": "M", "loginPage": {\#(keys)}}"#)
            Issue.record("accepted loginPage {\(keys)}")
        } catch let error as ConfigurationError {
            #expect(error.message.contains(reason), "\(error.message)")
        }
    }

    @Test func anMVPDAnswerThatArrivesAfterItExpiredIsRefused() async throws {
        try await BackendFixture.with { service, client async throws in
            let (response, relay, _) = try await SAMLPostBindingTests.signInUpToTheConsumer(client)
            service.clock.advance(by: 301)
            let late = try await client.post("/sp/saml/SAMLAssertionConsumer", form: [("SAMLResponse", response), ("RelayState", relay)])
            #expect(late.status == 400)
            #expect(late.text.contains("expired"))
            #expect(service.sessions.isEmpty)
        }
    }
}
