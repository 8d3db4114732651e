import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PassProtocol

/// What the console asks the entitlement backend about directly (its `/admin` routes): things only the server saw,
/// such as the second-screen attempts to use a registration code.
struct BackendAdmin: Sendable {
    let baseURL: URL

    init?(baseURL: String?) {
        guard let baseURL, let url = URL(string: baseURL) else { return nil }
        self.baseURL = url
    }

    /// The backend's record of a registration code; nil when it does not know the code or cannot be reached.
    func regcodeLife(_ code: String) async -> RegcodeLife? {
        await get("admin/regcodes/\(code)", as: RegcodeLife.self)
    }

    /// A sign-in the backend made: the user ID (GUID) its tokens carry and the MVPD username it was made for.
    struct SignIn: Decodable, Sendable {
        var guid: String
        var username: String
    }

    /// Every sign-in the backend holds; empty when it cannot be reached.
    func signIns() async -> [SignIn] {
        await get("admin/sessions", as: [SignIn].self) ?? []
    }

    private func get<Answer: Decodable>(_ path: String, as type: Answer.Type) async -> Answer? {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.timeoutInterval = 2
        // A backend bound beyond loopback wants its admin token (see AdminAccess in PassBackend).
        if let token = ProcessInfo.processInfo.environment["PASSBACKEND_ADMIN_TOKEN"], !token.isEmpty {
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }
        guard let (data, response) = try? await URLSession.shared.data(for: request),
            (response as? HTTPURLResponse)?.statusCode == 200
        else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(Answer.self, from: data)
    }
}
