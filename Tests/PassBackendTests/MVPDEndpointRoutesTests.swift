import Foundation
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// Every MVPD page path the simulator and the SDK's login URLs use is one the backend serves: the path is named once,
/// in `PassProtocol.MVPDEndpoint`, and a renamed route breaks here instead of in a simulated sign-in.
struct MVPDEndpointRoutesTests {
    @Test(arguments: MVPDEndpoint.allCases)
    func theBackendServesEachMVPDPage(_ endpoint: MVPDEndpoint) async throws {
        try await BackendFixture.with { _, client async throws in
            let path = endpoint.path(mvpdID: "Dish")
            let answer = switch endpoint {
            case .login, .logout, .resume, .oauthAuthorize: try await client.get(path)
            case .platformSignIn: try await client.post(path, form: [("username", "carol"), ("password", "wrong")])
            case .samlSSO, .oauthToken: try await client.post(path, form: [("nothing", "")])
            }
            #expect(answer.status != 404 && answer.status != 405, "\(path) answered \(answer.status)")
        }
    }

    @Test func thePathsAreTheRoutesWithTheMVPDFilledIn() {
        for endpoint in MVPDEndpoint.allCases {
            #expect(endpoint.route.replacingOccurrences(of: "{mvpd}", with: "Dish") == endpoint.path(mvpdID: "Dish"))
        }
        #expect(MVPDEndpoint.platformSignIn.path(mvpdID: "Dish") == "/mvpd/Dish/platform-signin")
    }
}
