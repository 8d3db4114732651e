import Foundation
import Testing

/// A storage domain that is well formed but names no device is `404` (nothing there), a malformed one `400` (found by
/// schemathesis: a schema-valid `0/team:0` was refused as bad input).
struct StorageDomainAPITests {
    @Test func aDomainOfNoDeviceIs404AndAMalformedOneIs400() async throws {
        try await ConsoleFixture.with { fixture in
            let missing = await fixture.post("/api/storage/clear", json: #"{"domain":"0/team:0","dryRun":true}"#)
            #expect(missing.status == 404)
            #expect(missing.json["error"] as? String == "unknown_domain")
            #expect((missing.json["message"] as? String)?.contains("phone") == true, "names the devices there are")
            for malformed in ["phone", "phone/team", "phone/box:X", "phone/team:"] {
                let answer = await fixture.post("/api/storage/clear", json: #"{"domain":"\#(malformed)","dryRun":true}"#)
                #expect(answer.status == 400, "\(malformed)")
            }
            #expect(await fixture.get("/api/storage/export?domain=tv9/app:x").status == 404)
        }
    }
}
