import Foundation
import Testing

@testable import PassProtocol

struct RESTPayloadTests {
    func jsonText(_ payload: some RESTPayload) -> String {
        String(decoding: payload.json(), as: UTF8.self)
    }

    @Test func errorJSONAndXMLShapes() throws {
        let error = RESTError(status: 403, message: "User not authorized", details: "Upgrade <Premium>")
        #expect(jsonText(error) == #"{"details":"Upgrade <Premium>","message":"User not authorized","status":403}"#)
        #expect(
            error.xml()
                == "<error><status>403</status><message>User not authorized</message>"
                + "<details>Upgrade &lt;Premium&gt;</details></error>"
        )
        #expect(try RESTError.parse(xml: error.xml()) == error)
    }

    @Test func errorWithoutDetailsOmitsThem() {
        let error = RESTError(status: 403, message: "Forbidden")
        #expect(jsonText(error) == #"{"message":"Forbidden","status":403}"#)
        #expect(error.xml() == "<error><status>403</status><message>Forbidden</message></error>")
    }

    @Test func registrationCodeUsesNumbersForTimesAndTheReggieNamespace() throws {
        var info = RegistrationInfo(deviceId: "dev-1")
        info.deviceType = "tvOS"
        info.sourceApplicationInformation = SourceApplicationInformation(id: "app", name: "Demo", version: "1.0")
        let record = RegistrationCode(
            id: "0dd0e9c4-1111",
            code: "TJJCFK7",
            requestor: "REF30",
            mvpd: "Cablevision",
            generated: 1_700_000_000_000,
            expires: 1_700_001_800_000,
            info: info
        )
        #expect(
            jsonText(record)
                == #"{"code":"TJJCFK7","expires":1700001800000,"generated":1700000000000,"id":"0dd0e9c4-1111","#
                + #""info":{"deviceId":"dev-1","deviceType":"tvOS","sourceApplicationInformation":"#
                + #"{"id":"app","name":"Demo","version":"1.0"}},"mvpd":"Cablevision","requestor":"REF30"}"#
        )
        #expect(
            record.xml().hasPrefix(
                #"<ns2:regcode xmlns:ns2="model.mvc.reggie.pass.adobe.com"><id>0dd0e9c4-1111</id><code>TJJCFK7</code>"#
            )
        )
        #expect(record.xml().hasSuffix("<version>1.0</version></sourceApplicationInformation></info></ns2:regcode>"))
        #expect(try RegistrationCode.decode(json: record.json()) == record)
    }

    @Test func tokenAnswersWriteExpiresAsAString() throws {
        let expiry = EpochMilliseconds.date(1_700_000_000_000)
        let authn = AuthNTokenResponse(requestor: "REF30", mvpd: "Cablevision", userId: "u1", expiresAt: expiry)
        #expect(
            jsonText(authn) == #"{"expires":"1700000000000","mvpd":"Cablevision","requestor":"REF30","userId":"u1"}"#
        )
        #expect(authn.expiresDate == expiry)
        let authz = AuthorizationResponse(mvpd: "Cablevision", resource: "bravo", requestor: "REF30", expiresAt: expiry)
        #expect(
            jsonText(authz)
                == #"{"expires":"1700000000000","mvpd":"Cablevision","requestor":"REF30","resource":"bravo"}"#
        )
        let proxied = AuthorizationResponse(mvpd: "M", resource: "r", requestor: "R", expires: "1", proxyMvpd: "P")
        #expect(jsonText(proxied).contains(#""proxyMvpd":"P""#))
        #expect(
            authn.xml()
                == "<authentication><requestor>REF30</requestor><mvpd>Cablevision</mvpd><userId>u1</userId>"
                + "<expires>1700000000000</expires></authentication>"
        )
    }

    @Test func tokenAnswersAcceptANumericExpiresWhenDecoding() throws {
        let json = Data(#"{"requestor":"R","mvpd":"M","userId":"u","expires":1700000000000}"#.utf8)
        #expect(try AuthNTokenResponse.decode(json: json).expires == "1700000000000")
    }

    @Test func mediaTokenAnswerCarriesTheBase64TokenAndDocumentedFields() throws {
        let signed = SignedToken.sign(MediaToken.fixture(), with: TestKeys.signing)
        let answer = MediaTokenResponse(token: signed)
        let object = try #require(JSONSerialization.jsonObject(with: answer.json()) as? [String: String])
        #expect(Set(object.keys) == ["resource", "requestor", "expires", "serializedToken", "userId", "mvpdId"])
        #expect(object["expires"] == "1893456420123")
        #expect(object["serializedToken"]?.hasPrefix("PHNpZ25hdHVyZUluZm8+") == true)
        #expect(try SignedToken<MediaToken>.parse(base64: answer.serializedToken) == signed)
        #expect(try MediaTokenResponse.decode(json: answer.json()) == answer)
    }

    @Test func preauthorizationJSONAndPositionalXML() throws {
        let answer = PreauthorizationResponse(resources: [
            .init(id: "bravo", authorized: true),
            .init(id: "charlie", authorized: false, error: RESTError(status: 403, message: "Denied")),
        ])
        #expect(
            jsonText(answer)
                == #"{"resources":[{"authorized":true,"id":"bravo"},"#
                + #"{"authorized":false,"error":{"message":"Denied","status":403},"id":"charlie"}]}"#
        )
        #expect(
            answer.xml()
                == "<resources><resource><id>bravo</id><authorized>true</authorized></resource>"
                + "<resource><id>charlie</id><authorized>false</authorized>"
                + "<error><status>403</status><message>Denied</message></error></resource></resources>"
        )
        #expect(try PreauthorizationResponse.parse(xml: answer.xml()) == answer)
        #expect(answer.authorizedIDs == ["bravo"])
    }

    @Test func userMetadataRoundTripsOpenJSONAndRendersXML() throws {
        let metadata = UserMetadata(
            updated: 1_700_000_000,
            encrypted: ["householdID"],
            data: ["zip": ["10001", "10002"], "maxRating": ["MPAA": "R", "VCHIP": 14], "householdID": "enc=="]
        )
        let object = try #require(JSONSerialization.jsonObject(with: metadata.json()) as? [String: Any])
        #expect(Set(object.keys) == ["updated", "encrypted", "data"])
        #expect(try UserMetadata.decode(json: metadata.json()) == metadata)
        #expect(metadata.isEncrypted("householdID"))
        #expect(
            metadata.xml()
                == "<userMetadata><updated>1700000000</updated><encrypted>householdID</encrypted><data>"
                + "<householdID>enc==</householdID><maxRating><MPAA>R</MPAA><VCHIP>14</VCHIP></maxRating>"
                + "<zip>10001</zip><zip>10002</zip></data></userMetadata>"
        )
    }

    @Test func jsonValueDecodesEveryKind() throws {
        let json = Data(#"{"s":"x","n":1.5,"i":3,"b":false,"z":null,"a":[1,"two"],"o":{"k":true}}"#.utf8)
        let value = try JSONDecoder().decode(JSONValue.self, from: json)
        #expect(value == ["s": "x", "n": 1.5, "i": 3, "b": false, "z": nil, "a": [1, "two"], "o": ["k": true]])
        #expect(JSONValue.number(3).plainText == "3")
        #expect(JSONValue.number(1.5).plainText == "1.5")
    }

    @Test func missingRequiredFieldIsAPayloadError() {
        #expect(throws: PayloadFormatError.self) {
            try MediaTokenResponse.decode(json: Data(#"{"resource":"r"}"#.utf8))
        }
    }
}

struct HandWrittenJSONTests {
    @Test func theMediaTokenAnswerWrittenByHandIsByteEqualToTheEncodedOne() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for answer in [
            MediaTokenResponse(resource: "news", requestor: "REF30", expires: "1795000000123",
                serializedToken: "PHNpZ25hdHVyZUluZm8+abc/def+==", userId: "guid-1", mvpdId: "Dish"),
            MediaTokenResponse(resource: "<rss version=\"2.0\"><title>a\\b\n\t\u{1}é/x</title></rss>", requestor: "R",
                expires: "", serializedToken: "", userId: "ü\"", mvpdId: "M"),
        ] {
            #expect(answer.json() == (try encoder.encode(answer)))
            #expect(try MediaTokenResponse.decode(json: answer.json()) == answer)
        }
    }
}
