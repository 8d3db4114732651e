import AccessEnabler
import Foundation

/// One simulated app the console runs on its demo device: who it is and which Programmer it serves.
public struct ConsoleAppSpec: Codable, Sendable, Equatable {
    /// A short ID for URLs (`news-ios`).
    public var id: String
    /// A name for people (`News (iOS)`).
    public var name: String
    public var app: AppIdentity
    /// The Programmer its setRequestor names.
    public var requestorID: String
    /// tvOS: the registered app's public key and secret (they sign the second-screen calls).
    public var publicKey: String?
    public var secret: String?
    /// The resources its buttons offer.
    public var resources: [String]
    /// The MVPDs its picker offers (from the Programmer's configuration), for the page.
    public var mvpds: [MVPDChoice]

    public struct MVPDChoice: Codable, Sendable, Equatable {
        public var id: String
        public var displayName: String
        /// The shape of its sign-in pages in a few words ("SAML POST · j_username/j_password · Resume page").
        public var signIn: String?
        public init(id: String, displayName: String, signIn: String? = nil) {
            self.id = id
            self.displayName = displayName
            self.signIn = signIn
        }
    }

    public init(
        id: String, name: String, app: AppIdentity, requestorID: String, publicKey: String? = nil, secret: String? = nil,
        resources: [String], mvpds: [MVPDChoice]
    ) {
        self.id = id
        self.name = name
        self.app = app
        self.requestorID = requestorID
        self.publicKey = publicKey
        self.secret = secret
        self.resources = resources
        self.mvpds = mvpds
    }
}
