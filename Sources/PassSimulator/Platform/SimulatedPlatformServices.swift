import AccessEnabler
import Foundation
import PassProtocol
import PassStorage
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A system TV-provider picker with a scripted user, for Linux apps, `passconsole flow` and tests: the Apple dialog
/// of every simulated device (``AccessEnablerConfiguration/simulated(app:device:osVersion:serviceProvider:)`` installs
/// it, reading the device's ``TVProviderSetting``).
///
/// `.signIn` signs the device's system account in at the MVPD (``PassProtocol/MVPDEndpoint/platformSignIn`` at the backend) the way
/// Settings → TV Provider does, and hands the SDK the resulting profile. On tvOS a pick hands the SDK only the
/// provider: the SDK shows a registration code for it (cookbook flow E).
public struct SimulatedPlatformServices: PlatformServices {
    /// The scripted user.
    public enum Choice: Sendable, Equatable {
        /// Signs the system account in at `mvpdID` with these credentials, then hands the SDK the profile.
        case signIn(mvpdID: String, username: String, password: String)
        /// Picks `mvpdID` without a system sign-in: the SDK signs in itself (login page, or tvOS second screen).
        case pick(mvpdID: String)
        /// Picks "Other TV Providers".
        case otherProvider
        /// Closes the picker.
        case cancel
        /// Not signed in to any TV provider, and picks none.
        case notSignedIn
        /// Has denied this app access to the TV provider.
        case denied
        /// The platform fails with this reason.
        case fail(String)

        /// The choice a device's setting stands for.
        public init(_ setting: TVProviderSetting) {
            switch setting {
            case .pick(let mvpd, let username?, let password?): self = .signIn(mvpdID: mvpd, username: username, password: password)
            case .pick(let mvpd, _, _): self = .pick(mvpdID: mvpd)
            case .other: self = .otherProvider
            case .cancel: self = .cancel
            case .none: self = .notSignedIn
            case .denied: self = .denied
            }
        }
    }

    private enum Source: Sendable {
        case fixed(Choice)
        /// The device's setting, read at each request (Settings can change while apps run).
        case device(DeviceFolder)
    }

    /// The backend's origin (where the MVPD's platform sign-in is).
    public let backend: URL
    /// The device's platform: on tvOS a pick hands over the provider only.
    public let platform: Platform
    private let source: Source

    /// A picker whose user always does `choice`.
    /// - Parameter backend: the backend's origin, e.g. `http://127.0.0.1:8081`.
    public init(backend: URL, choice: Choice, platform: Platform = .iOS) {
        self.backend = backend
        self.platform = platform
        self.source = .fixed(choice)
    }

    /// The picker of the device in `folder`: its user does what the device's ``TVProviderSetting`` says.
    public init(backend: URL, device folder: DeviceFolder, platform: Platform) {
        self.backend = backend
        self.platform = platform
        self.source = .device(folder)
    }

    /// What the user does now.
    public func choice() throws -> Choice {
        switch source {
        case .fixed(let choice): choice
        case .device(let folder): Choice(try TVProviderSetting.load(from: folder))
        }
    }

    public func requestSignIn(mvpds: [MVPD]) async -> PlatformSignInResult {
        let choice: Choice
        do { choice = try self.choice() } catch { return .failed("The device's TV provider setting is unreadable: \(error)") }
        switch choice {
        case .otherProvider: return .otherProvider
        case .cancel: return .cancelled
        case .notSignedIn: return .noAccount
        case .denied: return .permissionDenied
        case .fail(let reason): return .failed(reason)
        case .pick(let mvpdID):
            guard mvpds.contains(where: { $0.ID == mvpdID }) else { return .unsupportedProvider(mvpdID: mvpdID) }
            return .picked(mvpdID: mvpdID)
        case .signIn(let mvpdID, let username, let password):
            guard mvpds.contains(where: { $0.ID == mvpdID }) else { return .unsupportedProvider(mvpdID: mvpdID) }
            // tvOS (flow E): the picked provider only; the sign-in happens on a second screen.
            if platform == .tvOS { return .picked(mvpdID: mvpdID) }
            var request = URLRequest(url: backend.appendingPathComponent(MVPDEndpoint.platformSignIn.path(mvpdID: mvpdID)))
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data("username=\(HTMLText.formEscape(username))&password=\(HTMLText.formEscape(password))".utf8)
            guard let (data, response) = try? await URLSession.shared.data(for: request),
                (response as? HTTPURLResponse)?.statusCode == 200,
                let answer = try? JSONDecoder().decode([String: String].self, from: data), let saml = answer["SAMLResponse"]
            else { return .failed("The TV provider account could not sign in at \(mvpdID).") }
            let expires = answer["expirationDate"].flatMap(EpochMilliseconds.date)
            return .signedIn(mvpdID: mvpdID, samlResponse: saml, expires: expires)
        }
    }
}
