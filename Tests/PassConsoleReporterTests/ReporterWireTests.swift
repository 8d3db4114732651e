import AccessEnabler
import Foundation
import PassConsoleReporter
import PassProtocol
import Testing

/// Every event the reporter writes is what the console's ingest decodes — byte for byte what the SDK itself writes
/// for the same event — with secrets cut on the device by the SDK's rule unless the app turns that off.
struct ReporterWireTests {
    static let app = ConsoleReporter.App(bundleID: "com.vendor.wire", teamID: "WIRE1", platform: .iOS)

    /// One of each callback (with and without their optional parts) and calls with secrets among their arguments.
    static func reportEverything(to reporter: ConsoleReporter) {
        let dish = MVPD(ID: "Dish", displayName: "DISH", logoURL: "http://127.0.0.1/logo/Dish.png")
        let spectrum = MVPD(ID: "Spectrum", displayName: "Spectrum", enablePlatformServices: true, hasAuthNPerRequestor: true,
            passiveAuthnEnabled: false, useSVC: true)
        reporter.call(.setRequestor, ["requestorID": "REF30", "serviceProviders": [URL(string: "http://127.0.0.1:8081/adobe-services")!]])
        reporter.callback(.setRequestorComplete(status: 1))
        reporter.callback(.displayProviderDialog(mvpds: [dish, spectrum]))
        reporter.call(.setSelectedProvider, ["mvpd": "Dish"])
        reporter.callback(.navigateToUrl(url: "http://127.0.0.1:8081/login?x=\"y\"&z=a/b"))
        reporter.callback(.navigateToUrl(url: "http://127.0.0.1:8081/login", useSVC: true))
        reporter.call(.handleExternalURL, ["url": "adobepass://ios.app", "password": "carol123",
            "authz_token": String(repeating: "A", count: 60), "note": "before <signatureInfo>secret-signature"])
        reporter.callback(.setAuthenticationStatus(status: 1, errorCode: ""))
        reporter.callback(.setAuthenticationStatus(status: 0, errorCode: nil))
        reporter.callback(.sendTrackingData(event: 0, data: ["YES", "Dish", "5f2b…", "NO", "iPhone", "iOS", "17.0"]))
        reporter.callback(.setToken(token: "PHNpZ25hdHVyZUluZm8+" + String(repeating: "x", count: 100), resource: "news"))
        reporter.callback(.tokenRequestFailed(resource: "movies", errorCode: "User Not Authorized Error", errorDescription: nil))
        reporter.callback(.tokenRequestFailed(resource: "movies", errorCode: "Network Error", errorDescription: "line\nbreak\ttab\u{1}"))
        reporter.callback(.selectedProvider(mvpd: dish))
        reporter.callback(.selectedProvider(mvpd: nil))
        reporter.callback(.setMetadataStatus(metadata: JSONValue.object(["MPAA": .string("PG-13"), "rank": .number(3), "ok": .bool(true)]),
            encrypted: false, key: 3, arguments: ["user_metadata_name": "maxRating"]))
        reporter.callback(.setMetadataStatus(metadata: nil, encrypted: true, key: 1, arguments: nil))
        reporter.callback(.setMetadataStatus(metadata: ["zip": ["10001", 2.5], "none": NSNull()] as [String: Any], encrypted: false, key: 3,
            arguments: nil))
        reporter.callback(.preauthorizedResources(resources: ["news", "kids"]))
        reporter.callback(.presentTvProviderDialog)
        reporter.callback(.dismissTvProviderDialog)
        reporter.callback(.status(statusDictionary: ["errorId": "N001", "level": "info", "count": 2]))
        reporter.call(.logout)
    }

    /// The lines the reporter sent, each decoded as the console's ingest decodes it.
    static func sent(redacting: Bool) async throws -> (lines: [String], events: [EntitlementEvent], reporter: ConsoleReporter) {
        var result: ([String], [EntitlementEvent], ConsoleReporter)!
        try await FakeConsole.with { fake, url in
            let reporter = ConsoleReporter(configuration: .init(console: url, app: app, deviceID: "wire-device", interval: 0.01,
                redactsSecrets: redacting))
            reportEverything(to: reporter)
            await reporter.finish()
            let lines = fake.acceptedLines
            let decoder = EntitlementEvent.Wire.decoder()
            result = (lines, try lines.map { try decoder.decode(EntitlementEvent.self, from: Data($0.utf8)) }, reporter)
        }
        return result
    }

    @Test func everyEventIsWhatTheConsolesIngestDecodesByteForByteAsTheSDKWritesIt() async throws {
        let (lines, events, reporter) = try await Self.sent(redacting: true)
        #expect(events.count == 24, "every call and callback, and sendTrackingData's tracking event")
        for (line, event) in zip(lines, events) {
            // (The console reads `…52.418Z` back as 52.4179999…, which it writes as `…52.417Z`: compare the rest, and
            // the instant to the millisecond.)
            let written = try #require(line.firstMatch(of: /"timestamp":"([^"]+)"\}$/)?.1)
            let parsed = try #require(EntitlementEvent.Wire.parse(String(written)))
            #expect(abs(parsed.timeIntervalSince(event.timestamp)) < 0.001)
            let sameTime = line.replacingOccurrences(of: String(written), with: EntitlementEvent.Wire.format(event.timestamp))
            #expect(try EntitlementEvent.Wire.ndjson([event]) == Data((sameTime + "\n").utf8), "\(line)")
        }
        #expect(events.map(\.sequence) == Array(1...24))
        #expect(events.allSatisfy { $0.sessionID == reporter.sessionID && $0.deviceID == "wire-device" })
        #expect(events.allSatisfy { $0.app == AppIdentity(bundleID: "com.vendor.wire", teamID: "WIRE1", platform: .iOS) })
        #expect(events.allSatisfy { abs($0.timestamp.timeIntervalSinceNow) < 600 })
        #expect(lines.allSatisfy { $0.contains(/"timestamp":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"\}$/) }, "ISO 8601 UTC, milliseconds")
        // The Programmer from setRequestor on, the MVPD from its selection until selectedProvider(nil)
        #expect(events.allSatisfy { $0.requestorID == "REF30" })
        #expect(events.map(\.mvpdID) == Array(repeating: nil, count: 3) + Array(repeating: "Dish", count: 12) + Array(repeating: nil, count: 9))
        let callbacks = events.compactMap(\.callback)
        #expect(callbacks.contains(.displayProviderDialog(mvpds: [
            MVPD(ID: "Dish", displayName: "DISH", logoURL: "http://127.0.0.1/logo/Dish.png"),
            MVPD(ID: "Spectrum", displayName: "Spectrum", enablePlatformServices: true, hasAuthNPerRequestor: true,
                passiveAuthnEnabled: false, useSVC: true),
        ])))
        #expect(callbacks.contains(.navigateToUrl(url: "http://127.0.0.1:8081/login", useSVC: true)))
        #expect(callbacks.contains(.tokenRequestFailed(resource: "movies", errorCode: "Network Error", errorDescription: "line\nbreak\ttab\u{1}")))
        #expect(callbacks.contains(.setMetadataStatus(metadata: .object(["MPAA": .string("PG-13"), "rank": .number(3), "ok": .bool(true)]),
            encrypted: false, key: 3, arguments: ["user_metadata_name": "maxRating"])))
        #expect(callbacks.contains(.setMetadataStatus(metadata: .object(["zip": .array([.string("10001"), .number(2.5)]), "none": .null]),
            encrypted: false, key: 3, arguments: nil)))
        #expect(callbacks.contains(.status(statusDictionary: ["errorId": "N001", "level": "info", "count": "2"])))
        #expect(events.contains { $0.kind == .tracking(event: .authenticationDetection, data: ["YES", "Dish", "5f2b…", "NO", "iPhone", "iOS", "17.0"]) })
        #expect(events.contains { $0.kind == .apiCall(method: .setRequestor,
            arguments: ["requestorID": "REF30", "serviceProviders": "http://127.0.0.1:8081/adobe-services"]) })
        // Secrets cut on the device, as the SDK cuts them: the console's own pass changes nothing more
        #expect(events.allSatisfy { $0.redacted() == $0 })
        let handled = try #require(events.first { if case .apiCall(.handleExternalURL, _) = $0.kind { true } else { false } })
        #expect(handled.kind == .apiCall(method: .handleExternalURL, arguments: ["url": "adobepass://ios.app", "password": "[redacted]",
            "authz_token": "AAAAAAAAAAAAAAAA…[redacted 60 chars]", "note": "before [token redacted]"]))
        #expect(callbacks.contains(.setToken(token: "PHNpZ25hdHVyZUlu…[redacted 120 chars]", resource: "news")))
    }

    @Test func secretsLeaveTheDeviceWholeOnlyWhenTheAppSaysSo() async throws {
        let (_, events, _) = try await Self.sent(redacting: false)
        let callbacks = events.compactMap(\.callback)
        #expect(callbacks.contains(.setToken(token: "PHNpZ25hdHVyZUluZm8+" + String(repeating: "x", count: 100), resource: "news")))
        let handled = try #require(events.first { if case .apiCall(.handleExternalURL, _) = $0.kind { true } else { false } })
        guard case .apiCall(_, let arguments) = handled.kind else { return }
        #expect(arguments["password"] == "carol123")
        #expect(arguments["authz_token"] == String(repeating: "A", count: 60))
    }

    @Test func aTrackingEventTypeTheConsoleDoesNotKnowIsRecordedAsAnErrorNotRefused() async throws {
        try await FakeConsole.with { fake, url in
            let reporter = ConsoleReporter(configuration: .init(console: url, app: Self.app, deviceID: "d", interval: 0.01))
            reporter.callback(.sendTrackingData(event: 7, data: ["YES", 3]))
            await reporter.finish()
            let event = try EntitlementEvent.Wire.decoder().decode(EntitlementEvent.self, from: Data(try #require(fake.acceptedLines.first).utf8))
            #expect(event.kind == .error(code: "reporter.unknownCallback",
                message: "sendTrackingData with an event type the console does not know (7): YES, 3"))
        }
    }
}
