import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The platform's single sign-on (Apple's TV Provider / VideoSubscriberAccount), which the app provides.
///
/// When the requestor has MVPDs with platform SSO support, `getAuthentication` calls
/// `presentTvProviderDialog`, asks these services for the user's choice, and exchanges a platform sign-in for an
/// authentication token without a login page. On Linux, ``SimulatedPlatformServices`` plays the system picker.
public protocol PlatformServices: Sendable {
    /// Shows the system TV-provider picker offering `mvpds` and returns what the user did.
    func requestSignIn(mvpds: [MVPD]) async -> PlatformSignInResult
}

/// What the user did in the system TV-provider picker.
public enum PlatformSignInResult: Sendable, Equatable {
    /// Signed in (or already was): the provider and the signed profile (SAML response) the platform holds.
    case signedIn(mvpdID: String, samlResponse: String)
    /// Chose "Other TV Providers": the SDK shows its own picker (status `N003`).
    case otherProvider
    /// Picked a provider this app's Programmer does not support for SSO (status `N004`).
    case unsupportedProvider(mvpdID: String)
    /// Closed the picker (status `N005`, authentication cancelled).
    case cancelled
    /// The platform failed (status `AAPL_ERROR`); the SDK falls back to its own picker.
    case failed(String)
}

/// A system TV-provider picker with a scripted user, for Linux apps, `passconsole flow` and tests.
///
/// `.signIn` signs the device's system account in at the MVPD (the backend's `/mvpd/{id}/platform-signin`) the way
/// Settings → TV Provider does, and hands the SDK the resulting profile.
public struct SimulatedPlatformServices: PlatformServices {
    /// The scripted user.
    public enum Choice: Sendable, Equatable {
        case signIn(mvpdID: String, username: String, password: String)
        case otherProvider
        case cancel
        case fail(String)
    }

    public let backend: URL
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
            var request = URLRequest(url: backend.appendingPathComponent("mvpd/\(mvpdID)/platform-signin"))
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(HTTPTransport.encode([("username", username), ("password", password)]).utf8)
            guard let (data, response) = try? await URLSession.shared.data(for: request),
                (response as? HTTPURLResponse)?.statusCode == 200,
                let answer = try? JSONDecoder().decode([String: String].self, from: data), let saml = answer["SAMLResponse"]
            else { return .failed("The TV provider account could not sign in at \(mvpdID).") }
            return .signedIn(mvpdID: mvpdID, samlResponse: saml)
        }
    }
}
