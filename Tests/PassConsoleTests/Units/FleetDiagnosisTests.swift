import AccessEnabler
import Foundation
import Testing
@testable import PassConsole

struct FleetDiagnosisTests {
    func start(device: String, bundle: String = "com.a.app", at seconds: Double, status: Int, code: String? = "CFG404") -> [EntitlementEvent] {
        let session = UUID()
        func event(_ kind: EntitlementEvent.Kind, _ offset: Double) -> EntitlementEvent {
            EntitlementEvent(sequence: 0, timestamp: Date(timeIntervalSince1970: seconds + offset), sessionID: session, deviceID: device,
                app: AppIdentity(bundleID: bundle, teamID: "T"), requestorID: "REF30", mvpdID: nil, kind: kind)
        }
        var events = [event(.httpExchange(exchange: HTTPExchange(method: "GET", url: "http://prod.example:443/adobe-services/config/REF30",
            parameters: [:], status: nil, responseBody: nil, failure: "refused", durationMs: 3)), 0)]
        if status == 0, let code { events.append(event(.callback(callback: .status(statusDictionary: ["errorId": code, "level": "error"])), 0.1)) }
        events.append(event(.callback(callback: .setRequestorComplete(status: status)), 0.2))
        return events
    }

    @Test func theSameFailureOnTwoDevicesIsTheAppsProblemOneDeviceIsNot() throws {
        #expect(FleetDiagnosis.alerts(start(device: "a", at: 0, status: 0) + start(device: "a", at: 10, status: 0)).isEmpty)
        let alerts = FleetDiagnosis.alerts(start(device: "a", at: 0, status: 0) + start(device: "b", at: 10, status: 0),
            consoleBackend: "http://127.0.0.1:8081")
        let alert = try #require(alerts.first)
        #expect(alerts.count == 1)
        #expect(alert.id == "service_unreachable" && alert.sessions == 2 && alert.devices == 2)
        #expect(alert.text.contains("It asked prod.example:443 (this console's backend is http://127.0.0.1:8081)."))
    }

    @Test func aSuccessAfterTheFailuresEndsTheAlertAndOtherAppsOrCodesDoNotMix() {
        let failures = start(device: "a", at: 0, status: 0) + start(device: "b", at: 10, status: 0)
        #expect(FleetDiagnosis.alerts(failures + start(device: "c", at: 20, status: 1)).isEmpty)
        // A success of another app does not count; a different code on the second device is not "the same failure".
        #expect(FleetDiagnosis.alerts(failures + start(device: "c", bundle: "com.other", at: 20, status: 1)).count == 1)
        #expect(FleetDiagnosis.alerts(start(device: "a", at: 0, status: 0) + start(device: "b", at: 10, status: 0, code: "CFG400")).isEmpty)
    }
}
