import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PassProtocol

/// What the console asks the entitlement backend about directly (its `/admin` routes): things only the server saw,
/// such as the second-screen attempts to use a registration code, or who a recorded session signed in as.
struct BackendAdmin: Sendable {
    let baseURL: URL

    init?(baseURL: String?) {
        guard let baseURL, let url = URL(string: baseURL) else { return nil }
        self.baseURL = url
    }

    /// The backend's record of a registration code; nil when it does not know the code or cannot be reached.
    func regcodeLife(_ code: String) async -> RegcodeLife? {
        guard let data = await get("admin/regcodes/\(code)") else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(RegcodeLife.self, from: data)
    }

    /// Every sign-in the backend issued an authN token for (ended ones too): the replay's subscribers and the session
    /// search's usernames. nil when it cannot be reached.
    func signIns() async -> [ReplaySubscribers.SignIn]? {
        guard let data = await get("admin/signins") else { return nil }
        return try? JSONDecoder().decode([ReplaySubscribers.SignIn].self, from: data)
    }

    // MARK: - Requests

    /// The body of a `200` answer to `GET path`, or nil.
    private func get(_ path: String) async -> Data? {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.timeoutInterval = 2
        // A backend bound beyond loopback wants its admin token (see AdminAccess in PassBackend).
        if let token = ProcessInfo.processInfo.environment["PASSBACKEND_ADMIN_TOKEN"], !token.isEmpty {
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }
        guard let (data, response) = try? await Self.session.data(for: request),
            (response as? HTTPURLResponse)?.statusCode == 200
        else { return nil }
        return data
    }

    /// No URLCache: with one, cancelling a task (a page that leaves mid-request) can trap in
    /// swift-corelibs-foundation, as EventReporter and HTTPTransport note.
    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        return URLSession(configuration: configuration)
    }()
}
