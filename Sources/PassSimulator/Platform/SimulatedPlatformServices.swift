import AccessEnabler
import Foundation
import PassProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A system TV-provider picker with a scripted user, for Linux apps, `passconsole flow` and tests.
///
/// `.signIn` signs the device's system account in at the MVPD (``PassProtocol/MVPDEndpoint/platformSignIn`` at the backend) the way
/// Settings → TV Provider does, and hands the SDK the resulting profile.
public struct SimulatedPlatformServices: PlatformServices {
    /// The scripted user.
    public enum Choice: Sendable, Equatable {
        /// Signs the system account in at `mvpdID` with these credentials, then hands the SDK the profile.
        case signIn(mvpdID: String, username: String, password: String)
        /// Picks "Other TV Providers".
        case otherProvider
        /// Closes the picker.
        case cancel
        /// The platform fails with this reason.
        case fail(String)
    }

    /// The backend's origin (where the MVPD's platform sign-in is).
    public let backend: URL
    /// What the scripted user does in the picker.
    public let choice: Choice

    /// - Parameter backend: the backend's origin, e.g. `http://127.0.0.1:8081`.
    public init(backend: URL, choice: Choice) {
        self.backend = backend
        self.choice = choice
    }

    public func requestSignIn(mvpds: [MVPD]) async -> PlatformSignInResult {
        switch choice {
        case .otherProvider: return .otherProvider
        case .cancel: return .cancelled
        case .fail(let reason): return .failed(reason)
        case .signIn(let mvpdID, let username, let password):
            guard mvpds.contains(where: { $0.ID == mvpdID }) else { return .unsupportedProvider(mvpdID: mvpdID) }
            var request = URLRequest(url: backend.appendingPathComponent(MVPDEndpoint.platformSignIn.path(mvpdID: mvpdID)))
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data("username=\(HTMLText.formEscape(username))&password=\(HTMLText.formEscape(password))".utf8)
            guard let (data, response) = try? await URLSession.shared.data(for: request),
                (response as? HTTPURLResponse)?.statusCode == 200,
                let answer = try? JSONDecoder().decode([String: String].self, from: data), let saml = answer["SAMLResponse"]
            else { return .failed("The TV provider account could not sign in at \(mvpdID).") }
            return .signedIn(mvpdID: mvpdID, samlResponse: saml)
        }
    }
}
