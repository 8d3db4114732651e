import Foundation
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// The SAML HTTP-POST binding as Optimum (`Cablevision`, `loginPage.flow = samlPost`) runs it (spec §5.2.2): the SP's
/// page auto-posts a base64 `AuthnRequest` + `RelayState` to the MVPD; the MVPD's form takes `j_username`/`j_password`,
/// shows a *Resume* page, then auto-posts a signed `SAMLResponse` + `RelayState` to the consumer, which opens the
/// session and sends the browser to the app. Whatever the consumer cannot tie to the pending sign-in is a `400` page
/// and records nothing.
struct SAMLPostBindingTests {
    static let start = "/adobe-services/authenticate/saml?requestor_id=REF30&mso_id=Cablevision&device_id=\(Demo.device)"

    /// The steps up to the page that posts the MVPD's answer: returns that page's SAMLResponse and RelayState.
    static func signInUpToTheConsumer(_ client: TestHTTPClient, username: String = "alice", password: String = "alice123")
        async throws -> (response: String, relay: String, requestID: String)
    {
        let relay = try await client.get(start)
        let (sso, fields) = try #require(WebLogin.hiddenForm(relay.text))
        let request = try SAMLAuthnRequest.parse(base64: try #require(fields.first { $0.0 == "SAMLRequest" }?.1))
        let form = try await client.post(sso, form: fields)
        let login = try #require(WebLogin.capture(form.text, #"name="login" value="([^"]+)""#))
        let resume = try await client.post("/mvpd/Cablevision/login", form: [
            ("login", login), ("j_username", username), ("j_password", password), ("action", "signin"),
        ])
        #expect(resume.text.contains(">Resume<"))
        let (action, resumeFields) = try #require(WebLogin.hiddenForm(resume.text))
        let answer = try await client.post(action, form: resumeFields)
        let (consumer, answerFields) = try #require(WebLogin.hiddenForm(answer.text))
        #expect(consumer == SDKEndpoint.samlAssertionConsumer)
        return (try #require(answerFields.first { $0.0 == "SAMLResponse" }?.1), try #require(answerFields.first { $0.0 == "RelayState" }?.1),
                request.id)
    }

    @Test func authenticateAnswersAPageThatAutoPostsAnAuthnRequestToTheMVPD() async throws {
        try await BackendFixture.with { _, client async throws in
            let page = try await client.get(Self.start)
            #expect(page.status == 200)
            #expect(page.header("Content-Type")?.contains("text/html") == true)
            #expect(page.text.contains(#"<form method="post" action="/mvpd/Cablevision/saml/sso">"#))
            #expect(page.text.contains("document.forms[0].submit()"))
            #expect(page.text.contains("<noscript>") && page.text.contains(#"<button class="primary" type="submit">Continue</button></div></noscript>"#))
            let (_, fields) = try #require(WebLogin.hiddenForm(page.text))
            #expect(fields.map(\.0) == ["SAMLRequest", "RelayState"])
            let request = try SAMLAuthnRequest.parse(base64: fields[0].1)
            #expect(request.assertionConsumerServiceURL == "/sp/saml/SAMLAssertionConsumer")
            #expect(request.issuer == "https://saml.sp.auth.adobe.com")
            #expect(request.destination == "/mvpd/Cablevision/saml/sso")
            #expect(!request.isPassive)
            let xml = String(decoding: try #require(Data(base64Encoded: fields[0].1)), as: UTF8.self)
            #expect(xml.hasPrefix("<samlp:AuthnRequest "))
            #expect(xml.contains(#"ProtocolBinding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST""#))
        }
    }

    @Test func theMVPDsFormUsesItsOwnFieldNamesAndRefusesOthers() async throws {
        try await BackendFixture.with { service, client async throws in
            let relay = try await client.get(Self.start)
            let (sso, fields) = try #require(WebLogin.hiddenForm(relay.text))
            let form = try await client.post(sso, form: fields)
            #expect(form.text.contains(#"name="j_username""#) && form.text.contains(#"name="j_password" type="password""#))
            #expect(!form.text.contains(#"name="username""#))
            let login = try #require(WebLogin.capture(form.text, #"name="login" value="([^"]+)""#))
            let wrongNames = try await client.post("/mvpd/Cablevision/login", form: [
                ("login", login), ("username", "alice"), ("password", "alice123"), ("action", "signin"),
            ])
            #expect(wrongNames.status == 200)
            #expect(wrongNames.text.contains("The username or password is not correct"))
            #expect(service.sessions.isEmpty)
        }
    }

    @Test func theConsumerOpensTheSessionForTheAssertedSubscriberAndSendsTheBrowserToTheApp() async throws {
        try await BackendFixture.with { service, client async throws in
            let (response, relay, requestID) = try await Self.signInUpToTheConsumer(client)
            let xml = String(decoding: try #require(Data(base64Encoded: response)), as: UTF8.self)
            #expect(xml.hasPrefix("<samlp:Response "))
            #expect(xml.contains(#"InResponseTo="\#(requestID)""#))
            #expect(xml.contains(#"<saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:transient">Cablevision-alice</saml:NameID>"#))
            #expect(xml.contains(#"<saml:Attribute Name="username"><saml:AttributeValue>alice</saml:AttributeValue></saml:Attribute>"#))
            #expect(xml.contains("<saml:Issuer>\(SAMLNames.mvpdEntityID("Cablevision"))</saml:Issuer>"))
            #expect(xml.contains("<ds:SignatureValue>"))
            #expect(service.sessions.isEmpty, "nothing is recorded before the consumer")
            let done = try await client.post("/sp/saml/SAMLAssertionConsumer", form: [("SAMLResponse", response), ("RelayState", relay)])
            #expect(done.status == 200)
            #expect(done.text.contains(#"<meta http-equiv="refresh" content="0; url=adobepass://ios.app">"#))
            #expect(service.sessions.map(\.mvpdID) == ["Cablevision"])
            #expect(service.sessions.first?.username == "alice")
            let token = try await SDKClient(client: client).sessionDevice(requestor: "REF30", device: Demo.device)
            #expect(token.status == 200)

            // The answer is spent with its sign-in: posting it again is refused.
            let again = try await client.post("/sp/saml/SAMLAssertionConsumer", form: [("SAMLResponse", response), ("RelayState", relay)])
            #expect(again.status == 400)
            #expect(again.header("Authzf-Error-Code") == "unknown_relay_state")
            #expect(service.sessions.count == 1)
        }
    }

    enum Forgery: String, CaseIterable, Sendable {
        case unknownRelayState, missingRelayState, missingResponse, notBase64, notXML, notAResponse, alteredSubscriber, otherSignIn
    }

    @Test(arguments: Forgery.allCases)
    func theConsumerRefusesWhatItCannotTieToThePendingSignInAndRecordsNothing(_ forgery: Forgery) async throws {
        try await BackendFixture.with { service, client async throws in
            let (response, relay, _) = try await Self.signInUpToTheConsumer(client)
            let xml = String(decoding: try #require(Data(base64Encoded: response)), as: UTF8.self)
            var form: [(String, String)]
            var code = "invalid_saml_response"
            switch forgery {
            case .unknownRelayState:
                form = [("SAMLResponse", response), ("RelayState", UUID().uuidString)]
                code = "unknown_relay_state"
            case .missingRelayState:
                form = [("SAMLResponse", response)]
                code = "missing_relay_state"
            case .missingResponse:
                form = [("RelayState", relay)]
                code = "missing_saml_response"
            case .notBase64: form = [("SAMLResponse", "%%% not base64 %%%"), ("RelayState", relay)]
            case .notXML: form = [("SAMLResponse", Data("<samlp:Response".utf8).base64EncodedString()), ("RelayState", relay)]
            case .notAResponse:
                form = [("SAMLResponse", Data("<html><body>hello</body></html>".utf8).base64EncodedString()), ("RelayState", relay)]
            case .alteredSubscriber:
                let altered = xml.replacingOccurrences(of: "alice", with: "bob")
                form = [("SAMLResponse", Data(altered.utf8).base64EncodedString()), ("RelayState", relay)]
            case .otherSignIn:
                // A second sign-in of the same device: its RelayState with the first one's (genuine) answer.
                let second = try await client.get(Self.start)
                let (_, fields) = try #require(WebLogin.hiddenForm(second.text))
                form = [("SAMLResponse", response), ("RelayState", try #require(fields.first { $0.0 == "RelayState" }?.1))]
            }
            let answer = try await client.post("/sp/saml/SAMLAssertionConsumer", form: form)
            #expect(answer.status == 400)
            #expect(answer.header("Content-Type")?.contains("text/html") == true)
            #expect(answer.header("Authzf-Error-Code") == code)
            #expect(answer.text.contains("role=\"alert\""))
            #expect(answer.header("Location") == nil)
            #expect(service.sessions.isEmpty)

            // The genuine answer still completes its sign-in: a refusal spends nothing.
            let done = try await client.post("/sp/saml/SAMLAssertionConsumer", form: [("SAMLResponse", response), ("RelayState", relay)])
            #expect(done.status == 200)
            #expect(service.sessions.count == 1)
        }
    }

    @Test func theMVPDRefusesAMalformedOrForeignAuthnRequest() async throws {
        try await BackendFixture.with { service, client async throws in
            let relay = try await client.get(Self.start)
            let (sso, fields) = try #require(WebLogin.hiddenForm(relay.text))
            let relayState = try #require(fields.first { $0.0 == "RelayState" }?.1)
            let garbage = try await client.post(sso, form: [("SAMLRequest", "bm90IHhtbA=="), ("RelayState", relayState)])
            #expect(garbage.status == 400)
            #expect(garbage.text.contains("invalid_saml_request"))
            let foreign = SAMLAuthnRequest(issueInstant: service.now(), destination: sso, assertionConsumerServiceURL: "https://evil.example/acs")
            let stolen = try await client.post(sso, form: [("SAMLRequest", foreign.base64), ("RelayState", relayState)])
            #expect(stolen.status == 400)
            #expect(stolen.text.contains("unknown_service_provider"))
            let unknown = try await client.post(sso, form: [("SAMLRequest", try #require(fields.first?.1)), ("RelayState", "nope")])
            #expect(unknown.status == 400)
            #expect(unknown.text.contains("expired"))
        }
    }

    @Test func activationOnASecondScreenTakesTheSameShape() async throws {
        try await BackendFixture.with { service, client async throws in
            let app = RESTApp(client: client, service: service)
            let code = try await app.regcode(device: "tv-1")
            let done = try await app.activate(code: code, mvpd: "Cablevision", username: "alice", password: "alice123")
            #expect(done.status == 200, "\(done.text)")
            #expect(done.text.contains("You are signed in with Optimum"))
        }
    }
}
