import Foundation

/// The token storage of SDK 1.7+ ("storage 1.7", spec §8.2): nested Programmer → MVPD buckets, so one device holds
/// authentication for several Programmer–MVPD pairs at once.
///
/// A pure value: every rule of the seeds about what a change does (a new authZ token overwrites the old one, cancel
/// erases the Programmer's MVPD, logout clears everything) is a `mutating` method here, tested without I/O.
/// ``TokenStore`` persists it.
public struct TokenStorage: Codable, Sendable, Equatable {
    /// The layout version written by this SDK. The importer reads older versions (``LegacyTokenStorage``).
    public static let currentVersion = 3

    /// The layout version of this value; always ``currentVersion`` once loaded.
    public var version: Int = TokenStorage.currentVersion
    /// Buckets per Programmer (requestor ID).
    public var requestors: [String: RequestorBucket] = [:]
    /// Cookies saved per MVPD for passive authentication: MVPD → cookie domain → `name=value` cookies.
    public var passiveAuthnCookies: [String: [String: [String]]] = [:]

    /// An empty storage.
    public init() {}

    /// One Programmer's bucket: its current MVPD and one bucket per MVPD.
    public struct RequestorBucket: Codable, Sendable, Equatable {
        /// The MVPD of the last successful authentication (the cached selection), if any.
        public var currentMvpdID: String?
        /// Tokens per MVPD.
        public var mvpds: [String: MVPDBucket] = [:]

        /// Creates a Programmer's bucket.
        public init(currentMvpdID: String? = nil, mvpds: [String: MVPDBucket] = [:]) {
            self.currentMvpdID = currentMvpdID
            self.mvpds = mvpds
        }
    }

    /// The tokens of one Programmer–MVPD pair.
    public struct MVPDBucket: Codable, Sendable, Equatable {
        /// The authN token string (spec §6.1), as the backend sent it.
        public var authnToken: String?
        /// One authZ token per resource (a new one overwrites).
        public var authzTokens: [String: String] = [:]
        /// True after a successful authentication: `getAuthentication` may skip the picker.
        public var canAuthenticate: Bool = false
        /// User metadata JSON that came with the authN token.
        public var userMeta: String?
        /// The last preauthorization answer: resource IDs the user may view.
        public var preauthorizedResources: [String]?
        /// True when the sign-in was made through the platform's TV provider (Apple TV's dialog, cookbook flow E) and
        /// the token does not say so itself (its user metadata's `tokenSource`): logout then says VSA203.
        public var platformSignIn: Bool?

        /// Creates a Programmer–MVPD bucket; empty by default.
        public init(
            authnToken: String? = nil, authzTokens: [String: String] = [:], canAuthenticate: Bool = false,
            userMeta: String? = nil, preauthorizedResources: [String]? = nil
        ) {
            self.authnToken = authnToken
            self.authzTokens = authzTokens
            self.canAuthenticate = canAuthenticate
            self.userMeta = userMeta
            self.preauthorizedResources = preauthorizedResources
        }
    }

    // MARK: - Reading

    /// The bucket of a Programmer–MVPD pair, if any.
    public func bucket(requestor: String, mvpd: String) -> MVPDBucket? {
        requestors[requestor]?.mvpds[mvpd]
    }

    /// The Programmer's cached MVPD selection.
    public func currentMvpd(requestor: String) -> String? { requestors[requestor]?.currentMvpdID }

    /// True when nothing at all is stored.
    public var isEmpty: Bool { requestors.isEmpty && passiveAuthnCookies.isEmpty }

    // MARK: - Changes (the seeds' rules)

    /// Stores a fresh authN token for a pair after a successful authentication: the MVPD becomes the Programmer's
    /// current one and `canAuthenticate` turns true. AuthZ tokens of an earlier session of the pair are dropped.
    public mutating func storeAuthentication(requestor: String, mvpd: String, authnToken: String, userMeta: String?) {
        var bucket = requestors[requestor, default: RequestorBucket()]
        bucket.currentMvpdID = mvpd
        bucket.mvpds[mvpd] = MVPDBucket(authnToken: authnToken, canAuthenticate: true, userMeta: userMeta)
        requestors[requestor] = bucket
    }

    /// Stores an authZ token; exactly one per resource is kept, the new one overwrites the old one.
    public mutating func storeAuthorization(requestor: String, mvpd: String, resource: String, authzToken: String) {
        requestors[requestor, default: RequestorBucket()].mvpds[mvpd, default: MVPDBucket()].authzTokens[resource] = authzToken
    }

    /// Removes one authZ token (expired or refused by the server).
    public mutating func removeAuthorization(requestor: String, mvpd: String, resource: String) {
        requestors[requestor]?.mvpds[mvpd]?.authzTokens[resource] = nil
    }

    /// Stores the resources a preauthorization answer allowed.
    public mutating func storePreauthorized(requestor: String, mvpd: String, resources: [String]) {
        requestors[requestor, default: RequestorBucket()].mvpds[mvpd, default: MVPDBucket()].preauthorizedResources = resources
    }

    /// "Clear all tokens" of a pair (AND18): authN, user metadata, preauthorization and every authZ token.
    public mutating func clearTokens(requestor: String, mvpd: String) {
        guard var bucket = requestors[requestor]?.mvpds[mvpd] else { return }
        bucket.authnToken = nil
        bucket.userMeta = nil
        bucket.preauthorizedResources = nil
        bucket.authzTokens = [:]
        requestors[requestor]?.mvpds[mvpd] = bucket
    }

    /// Cancel (seed 002): erases the Programmer's current MVPD and that MVPD's bucket; nothing else is touched.
    public mutating func eraseCurrentMvpd(requestor: String) {
        guard var bucket = requestors[requestor] else { return }
        if let mvpd = bucket.currentMvpdID { bucket.mvpds[mvpd] = nil }
        bucket.currentMvpdID = nil
        requestors[requestor] = bucket.mvpds.isEmpty ? nil : bucket
    }

    /// Removes a pair's bucket entirely (sanitizer, invalid tokens).
    public mutating func removeBucket(requestor: String, mvpd: String) {
        requestors[requestor]?.mvpds[mvpd] = nil
        if requestors[requestor]?.currentMvpdID == mvpd { requestors[requestor]?.currentMvpdID = nil }
        if let bucket = requestors[requestor], bucket.mvpds.isEmpty, bucket.currentMvpdID == nil { requestors[requestor] = nil }
    }

    /// Logout (seed 002): clears the whole storage, every Programmer and every MVPD.
    public mutating func clearAll() {
        requestors = [:]
        passiveAuthnCookies = [:]
    }

    /// Every stored authN token with its place, for the sanitizer, SSO and the console.
    public var authnTokens: [(requestor: String, mvpd: String, token: String)] {
        requestors.sorted { $0.key < $1.key }.flatMap { requestor, bucket in
            bucket.mvpds.sorted { $0.key < $1.key }.compactMap { mvpd, tokens in
                tokens.authnToken.map { (requestor, mvpd, $0) }
            }
        }
    }
}
