import AccessEnabler
import Foundation
import PassProtocol
import Testing

/// Field problem #26: a device whose date is wrong judges every token's lifetime wrongly. setRequestor compares the
/// device's clock with the service's `Date` header and warns with CFG100 (spec §3.3); the exchanges carry the
/// server's time so the console can show the offset.
@Suite struct DeviceClockTests {
    @Test(arguments: EntitlementProtocol.allCases) func aDeviceClockTwoDaysBehindGetsCFG100WithTheOffset(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let service = fixture.service
            let app = try fixture.app(wire: wire) { $0.now = { service.now().addingTimeInterval(-2 * 86_400) } }
            // The server's Date has whole seconds, and a slow machine (a sanitizer build) may take a while to answer:
            // the offset and the recorded time are judged within that second and the time the exchange took.
            let before = service.now()
            await app.start(base: fixture.serviceProvider)
            let after = service.now()
            let slack = 2 + after.timeIntervalSince(before)
            // The warning does not stop the SDK: the requestor is configured.
            #expect(app.delegate.main.first == .setRequestorComplete(status: 1))
            let warning = try #require(app.delegate.statuses.first { $0["errorId"] == "CFG100" })
            #expect(warning["level"] == "warning")
            let offset = try #require(warning["clockOffsetSeconds"].flatMap(Int.init))
            #expect(Double(abs(offset - 172_800)) <= slack)
            #expect(warning["message"]?.contains("behind") == true)
            // The configuration exchange recorded the server's clock.
            var serverDate: Date?
            for await event in app.enabler.events(replay: true) {
                if case .httpExchange(let exchange) = event.kind { serverDate = exchange.serverDate; break }
            }
            let recorded = try #require(serverDate)
            #expect(recorded >= before.addingTimeInterval(-1) && recorded <= after.addingTimeInterval(1), "\(recorded) not in [\(before), \(after)]")
        }
    }

    @Test(arguments: EntitlementProtocol.allCases) func aCorrectClockGetsNoWarning(_ wire: EntitlementProtocol) async throws {
        try await SDKFixture.with { fixture in
            let app = try fixture.app(wire: wire)
            await app.start(base: fixture.serviceProvider)
            #expect(app.delegate.main.first == .setRequestorComplete(status: 1))
            #expect(!app.delegate.statuses.contains { $0["errorId"] == "CFG100" })
        }
    }
}
