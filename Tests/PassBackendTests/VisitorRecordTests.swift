import Foundation
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// The backend records the visitor ID a client sends with a sign-in and an authorization (issue 17 B.5; spec §1.2:
/// `AP-Visitor-Identifier` from the iOS SDK and REST v2, `ap_vi` from Android and browsers).
struct VisitorRecordTests {
    @Test func theHeaderAndTheAndroidParameterAreRecordedWithTheUserAndResource() async throws {
        try await BackendFixture.with { service, client async throws in
            let sdk = SDKClient(client: client)
            _ = try await sdk.signIn(Demo.alice)
            let session = try await client.post("/adobe-services/1.0/sessionDevice",
                form: [("_method", "GET"), ("requestor_id", "REF30"), ("device_id", Demo.device)],
                headers: [PassConstants.HEADER_VISITOR_ID: "ios-visitor"])
            #expect(session.status == 200)
            let authn = try SDKResponses.parseAuthnToken(session.text)
            let authz = try await client.post("/adobe-services/1.0/authorizeDevice", form: [
                ("resource_id", "news"), ("requestor_id", "REF30"), ("device_id", Demo.device), ("authentication_token", authn),
                (PassConstants.PARAMETER_VISITOR_ID, "android-visitor"),
            ])
            #expect(authz.status == 200, "\(authz.text)")
            let records = service.visitorRecords
            #expect(records.map(\.visitorID) == ["ios-visitor", "android-visitor"])
            #expect(records.map(\.event) == [.signIn, .authorization])
            #expect(records.map(\.resource) == [nil, "news"])
            #expect(records.allSatisfy { $0.requestorID == "REF30" && $0.mvpdID == "Cablevision" && $0.deviceID == Demo.device })
            #expect(Set(records.map(\.userID)) == [try #require(service.signIns.last?.guid)])
            // /admin/visitors lists them for the console and support staff.
            let listed = try await client.get("/admin/visitors")
            let rows = (try? JSONSerialization.jsonObject(with: listed.body)) as? [[String: Any]]
            #expect(rows?.compactMap { $0["visitorID"] as? String } == ["ios-visitor", "android-visitor"])
        }
    }

    @Test func aRequestWithoutOneOrWithAnUnusableOneRecordsNothingAndStillSucceeds() async throws {
        try await BackendFixture.with { service, client async throws in
            _ = try await SDKClient(client: client).signIn(Demo.alice)
            let tooLong = String(repeating: "9", count: VisitorID.maxLength + 1)
            let answer = try await client.post("/adobe-services/1.0/sessionDevice",
                form: [("_method", "GET"), ("requestor_id", "REF30"), ("device_id", Demo.device), (PassConstants.PARAMETER_VISITOR_ID, tooLong)])
            #expect(answer.status == 200)
            let spaced = try await client.post("/adobe-services/1.0/sessionDevice",
                form: [("_method", "GET"), ("requestor_id", "REF30"), ("device_id", Demo.device), (PassConstants.PARAMETER_VISITOR_ID, "a b")])
            #expect(spaced.status == 200)
            #expect(service.visitorRecords.isEmpty)
        }
    }
}
