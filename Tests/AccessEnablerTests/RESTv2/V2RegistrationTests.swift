import Foundation
import Locking
import PassProtocol
import PassStorage
import Testing
@testable import AccessEnabler

/// Dynamic client registration and the access token on REST API v2 (design note §6): registered once per install,
/// the credentials and the access token kept in the app's private storage, a new token only when the kept one is
/// refused or about to end.
@Suite struct V2RegistrationTests {
    /// The paths of the exchanges a transport made.
    final class Paths: Sendable {
        private let list = Mutex<[String]>([])
        func append(_ path: String) { list.withLock { $0.append(path) } }
        func withLock<T>(_ body: ([String]) -> T) -> T { body(list.withLock { $0 }) }
    }

    /// A transport that remembers the path of every exchange.
    static func transport() -> (HTTPTransport, Paths) {
        let paths = Paths()
        let transport = HTTPTransport(timeout: 10, commonHeaders: { [:] }, record: { exchange in
            paths.append(URLComponents(string: exchange.url)?.path ?? exchange.url)
        })
        return (transport, paths)
    }

    static func client(_ fixture: SDKFixture, _ registration: V2Registration, _ transport: HTTPTransport) -> V2Client {
        V2Client(base: fixture.serviceProvider, requestorID: "REF30", transport: transport, registration: registration, deviceID: "device-1")
    }

    @Test func registersOnceAndKeepsTheCredentialsAndTheAccessToken() async throws {
        try await SDKFixture.with { fixture in
            let file = try fixture.folder.appPrivate(bundleID: "com.example.news.ios", name: "rest-v2.json")
            let now: @Sendable () -> Date = { [service = fixture.service] in service.now() }
            let (transport, paths) = Self.transport()
            let registration = V2Registration(softwareStatement: "demo-software-statement", storage: file, now: now)
            let configuration = try await Self.client(fixture, registration, transport).configuration(requestorID: "REF30")
            #expect(configuration.requestorID == "REF30")
            _ = try await Self.client(fixture, registration, transport).configuration(requestorID: "REF30")
            #expect(paths.withLock { $0 } == ["/o/client/register", "/o/client/token", "/api/v2/REF30/configuration", "/api/v2/REF30/configuration"])
            // The file: the credentials and the access token, nothing else
            let state = try V2State.decode(try file.read())
            let kept = try #require(state.clients.values.first)
            #expect(state.clients.count == 1 && state.requestors.isEmpty)
            #expect(kept.accessToken != nil && kept.accessTokenExpires != nil && !kept.clientSecret.isEmpty)
            // A relaunch (a new registration object on the same file) asks nothing but the configuration
            let (again, pathsAgain) = Self.transport()
            let relaunched = V2Registration(softwareStatement: "demo-software-statement", storage: file, now: now)
            _ = try await Self.client(fixture, relaunched, again).configuration(requestorID: "REF30")
            #expect(pathsAgain.withLock { $0 } == ["/api/v2/REF30/configuration"])
        }
    }

    @Test func aRefusedAccessTokenIsRenewedWithTheKeptCredentialsAndTheCallSentOnceMore() async throws {
        try await SDKFixture.with { fixture in
            let (transport, paths) = Self.transport()
            // Kept in memory: the device's clock says the token is still good, the service has forgotten it
            let registration = V2Registration(softwareStatement: "demo-software-statement", storage: nil, now: { Date() })
            _ = try await Self.client(fixture, registration, transport).configuration(requestorID: "REF30")
            let first = registration.state().clients.values.first
            fixture.service.clock.advance(by: 21_601)
            _ = try await Self.client(fixture, registration, transport).configuration(requestorID: "REF30")
            #expect(paths.withLock { $0 } == [
                "/o/client/register", "/o/client/token", "/api/v2/REF30/configuration",
                "/api/v2/REF30/configuration", "/o/client/token", "/api/v2/REF30/configuration",
            ])
            let renewed = registration.state().clients.values.first
            #expect(renewed?.clientID == first?.clientID, "no new registration")
            #expect(renewed?.accessToken != first?.accessToken)
        }
    }

    @Test func withoutASoftwareStatementNothingIsSent() async throws {
        try await SDKFixture.with { fixture in
            let (transport, paths) = Self.transport()
            let registration = V2Registration(softwareStatement: nil, storage: nil, now: { Date() })
            do throws(SDKClient.Failure) {
                _ = try await Self.client(fixture, registration, transport).configuration(requestorID: "REF30")
                Issue.record("a configuration without a software statement")
            } catch {
                guard case .status(400, _, V2Registration.missingStatement?) = error else {
                    Issue.record("expected \(V2Registration.missingStatement), got \(error)")
                    return
                }
            }
            #expect(paths.withLock { $0 }.isEmpty)
        }
    }
}
