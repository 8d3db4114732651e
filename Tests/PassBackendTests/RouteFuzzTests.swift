import Foundation
import MicroHTTP
import PassBackend
import PassTestSupport
import Testing

/// Every backend route (SDK, REST, pages, admin) gets extreme and random values in each query, form and header input
/// it reads and each field of its JSON body, over real HTTP: no answer may be missing or a server error, and the
/// backend must still serve afterwards. Routes and their inputs are enumerated, so a new one is covered as added.
struct BackendRouteFuzzTests {
    @Test func everyRouteSurvivesExtremeValuesInEveryInput() async throws {
        try await BackendFixture.with { service, client async throws in
            let backend = PassBackend(service: service)
            let port = UInt16(try #require(URL(string: client.baseURL)?.port))
            let app = RESTApp(client: client, service: service)
            let configuredFaults = service.faults
            var fuzzer = RouteFuzzer(responder: backend, port: port, routes: backend.registeredRoutes)
            fuzzer.pathValues = ["requestor": "REF30", "mvpd": "Dish", "code": "ABCDEFG", "file": "Dish.svg"]
            fuzzer.baseValues = [
                "requestor_id": "REF30", "requestor": "REF30", "mso_id": "Dish", "mvpd": "Dish", "device_id": "fuzz-device",
                "deviceId": "fuzz-device", "resource_id": "news", "resource": "news", "client_type": "ios",
                "deviceType": "ios", "format": "json", "redirect_url": "/", "ttl": "60",
            ]
            fuzzer.baseHeaders = { method, path in
                path.hasPrefix("/api/v1") || path.hasPrefix("/reggie") ? [("Authorization", app.authorization(method, path))] : []
            }
            fuzzer.afterEach = { route in
                guard route.pattern.hasPrefix("/admin") else { return }
                service.faults = configuredFaults
                service.clock.offsetSeconds = 0
            }
            let plans = await fuzzer.plans()
            #expect(plans.count == backend.registeredRoutes.count)
            // The learning found the inputs that used to trap.
            #expect(plans.contains { $0.route.pattern == "/admin/activations" && $0.inputs.contains { $0.name == "limit" } })
            #expect(plans.contains { $0.route.pattern == "/admin/clock" && $0.route.method == "POST"
                && $0.bodyFields.contains { $0.path == ["advanceSeconds"] } })
            #expect(plans.contains { $0.route.method == "PUT" && $0.bodyFields.contains { $0.path == ["rules", "0", "status"] } })
            // The web variant's routes (issue 17 A.1, A.5), with the inputs they read.
            #expect(plans.contains { $0.route.pattern == "/indiv/devices" && $0.bodyFields.contains { $0.path == ["fingerprint"] } })
            #expect(plans.contains { $0.route.pattern == "/adobe-services/session"
                && $0.inputs.contains { $0.name == "reg_code" } && $0.inputs.contains { $0.name == "pass_sfp" } })
            #expect(plans.contains { $0.route.pattern == "/adobe-services/shortAuthorize" && $0.inputs.contains { $0.name == "session_guid" } })
            let report = await fuzzer.run(plans: plans) {
                let answer = try? await client.get("/adobe-services/1.0/config/REF30")
                return answer?.status == 200 ? nil : "the backend stopped answering (\(answer?.status ?? 0))"
            }
            #expect(report.failures.isEmpty, "\(report.failures.prefix(30).joined(separator: "\n"))")
            #expect(report.routes == plans.count)
            print("backend route fuzz: \(report.routes) routes, \(report.inputs) inputs, \(report.requests) requests, "
                + "\(report.failures.count) failures")
            try await BadInputTests.expectStillServing(client)
        }
    }
}
