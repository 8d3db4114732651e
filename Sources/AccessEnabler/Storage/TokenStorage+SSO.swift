import Foundation
import PassProtocol

/// What the SSO rules need to know about the current requestor, from its configuration.
///
/// ```swift
/// let context = SSOContext(
///     requestorID: "REF30", allowedMvpds: ["Cablevision", "Comcast_SSO"],
///     authnPerRequestorMvpds: ["Comcast_SSO"], passiveAuthnMvpds: ["Comcast_SSO"], now: .now, deviceID: deviceID)
/// ```
public struct SSOContext: Sendable, Equatable {
    /// The requestor of the `setRequestor` call.
    public var requestorID: String
    /// The MVPDs of its configuration: a token of any other issuer is not valid for it.
    public var allowedMvpds: Set<String>
    /// Its MVPDs with "Authentication per Requestor" (`authPerAggregator`, iOS `hasAuthNPerRequestor`): their tokens
    /// are bound to the requestor that obtained them and are never copied.
    public var authnPerRequestorMvpds: Set<String>
    /// Its MVPDs that allow passive authentication (`passiveAuthnEnabled`).
    public var passiveAuthnMvpds: Set<String>
    /// The time to judge expiry against.
    public var now: Date
    /// The device ID computed now; when given, tokens bound to another device never count (seed 003: the SDK sees
    /// the other app's token in the shared store but does not use it). `nil` skips the check.
    public var deviceID: String?

    /// Creates a context.
    public init(
        requestorID: String, allowedMvpds: Set<String>, authnPerRequestorMvpds: Set<String> = [],
        passiveAuthnMvpds: Set<String> = [], now: Date, deviceID: String? = nil
    ) {
        self.requestorID = requestorID
        self.allowedMvpds = allowedMvpds
        self.authnPerRequestorMvpds = authnPerRequestorMvpds
        self.passiveAuthnMvpds = passiveAuthnMvpds
        self.now = now
        self.deviceID = deviceID
    }
}

extension SSOContext {
    /// Whether the service accepts `token` when this requestor presents it (``RequestorBinding``): issued to this
    /// requestor, or by an MVPD without Authentication per Requestor. The silent SSO copy takes only such tokens, and
    /// the clean-up removes copies that stopped being such.
    public func accepts(_ token: AuthNToken) -> Bool {
        RequestorBinding.accepts(
            tokenIssuedTo: token.requestorID, presentedBy: requestorID,
            authnPerRequestor: authnPerRequestorMvpds.contains(token.mvpdID))
    }
}

/// A silent SSO copy made by ``TokenStorage/copySSOToken(_:)``.
public struct SSOCopy: Sendable, Equatable, Codable {
    /// The requestor whose bucket held the token.
    public var sourceRequestorID: String
    /// The MVPD of the token, now the current requestor's current MVPD.
    public var mvpdID: String

    /// Creates a description of a copy.
    public init(sourceRequestorID: String, mvpdID: String) {
        self.sourceRequestorID = sourceRequestorID
        self.mvpdID = mvpdID
    }
}

// MARK: - The rules of spec §8.4 and §8.5

extension TokenStorage {
    /// Silent SSO (spec §8.4): copies another requestor's token into the current requestor's bucket.
    ///
    /// Does nothing when the current requestor already holds a valid authN token. Otherwise looks in the **other**
    /// requestors' buckets for a valid token (unexpired, issued by an MVPD of ``SSOContext/allowedMvpds``, bound to
    /// this device when ``SSOContext/deviceID`` is given) that the service accepts from the current requestor
    /// (``SSOContext/accepts(_:)``, ``RequestorBinding``: its MVPD does **not** have Authentication per Requestor),
    /// restricted to the current MVPD when one is stored. The token that expires last wins. It is copied with
    /// `canAuthenticate = true`, the source's user metadata and preauthorized resources (not its authZ tokens, which
    /// name the other requestor), and its MVPD becomes the current one.
    ///
    /// - Returns: What was copied, or `nil` when nothing was.
    @discardableResult
    public mutating func copySSOToken(_ context: SSOContext) -> SSOCopy? {
        guard !hasValidAuthn(context) else { return nil }
        let current = currentMvpd(requestor: context.requestorID)
        let sources = validForeignTokens(context).filter { candidate in
            context.accepts(candidate.token) && (current == nil || candidate.mvpd == current)
        }
        guard let source = sources.max(by: { $0.token.expires < $1.token.expires }),
            let bucket = bucket(requestor: source.requestor, mvpd: source.mvpd)
        else { return nil }
        var target = requestors[context.requestorID, default: RequestorBucket()]
        target.currentMvpdID = source.mvpd
        target.mvpds[source.mvpd] = MVPDBucket(
            authnToken: bucket.authnToken, canAuthenticate: true, userMeta: bucket.userMeta,
            preauthorizedResources: bucket.preauthorizedResources
        )
        requestors[context.requestorID] = target
        return SSOCopy(sourceRequestorID: source.requestor, mvpdID: source.mvpd)
    }

    /// The MVPD to try passive authentication with (spec §8.5), or `nil`.
    ///
    /// Call after ``removeTokensAfterAuthnPerRequestorSwitch(_:)``. Only when the current requestor has no valid authN
    /// token, one of two conditions holds:
    /// - (a) it has no current MVPD, and another requestor holds a valid token of a per-requestor MVPD that allows
    ///   passive authentication: that MVPD is returned (the engine adopts it);
    /// - (b) its current MVPD is per-requestor, and another requestor holds a valid token of that **same** MVPD, which
    ///   allows passive authentication: the current MVPD is returned.
    public func passiveAuthenticationCandidate(_ context: SSOContext) -> String? {
        guard !hasValidAuthn(context) else { return nil }
        let eligible = validForeignTokens(context).filter { candidate in
            context.authnPerRequestorMvpds.contains(candidate.mvpd)
                && context.passiveAuthnMvpds.contains(candidate.mvpd)
        }
        guard let current = currentMvpd(requestor: context.requestorID) else {
            return eligible.max(by: { $0.token.expires < $1.token.expires })?.mvpd  // (a)
        }
        guard context.authnPerRequestorMvpds.contains(current) else { return nil }
        return eligible.contains { $0.mvpd == current } ? current : nil  // (b)
    }

    /// Clean-up when an MVPD switched to Authentication per Requestor (spec §8.4).
    ///
    /// If a token in the current requestor's bucket was issued to **another** requestor (an earlier SSO copy) and its
    /// MVPD now has Authentication per Requestor, the copy may no longer be used: the current requestor's whole bucket
    /// is wiped, current MVPD included, so that passive authentication can take over.
    ///
    /// - Returns: The MVPDs whose copied tokens caused the wipe; empty when nothing changed.
    @discardableResult
    public mutating func removeTokensAfterAuthnPerRequestorSwitch(_ context: SSOContext) -> [String] {
        let buckets = requestors[context.requestorID]?.mvpds ?? [:]
        let stale = buckets.keys.sorted().filter { mvpd in
            guard let serialized = buckets[mvpd]?.authnToken,
                let token = try? SignedToken<AuthNToken>.parse(serialized).body
            else { return false }
            return !context.accepts(token)
        }
        if !stale.isEmpty { requestors[context.requestorID] = nil }
        return stale
    }

    // MARK: - Helpers

    /// Whether the current requestor holds a valid authN token for any MVPD (what `checkAuthentication` answers 1 for
    /// before any SSO copy).
    public func hasValidAuthn(_ context: SSOContext) -> Bool {
        guard let buckets = requestors[context.requestorID]?.mvpds else { return false }
        return buckets.values.contains { bucket in
            guard let serialized = bucket.authnToken else { return false }
            return Self.validToken(serialized, context) != nil
        }
    }

    /// The valid authN tokens held by requestors other than the current one, in storage order.
    func validForeignTokens(_ context: SSOContext) -> [(requestor: String, mvpd: String, token: AuthNToken)] {
        authnTokens.compactMap { requestor, mvpd, serialized in
            guard requestor != context.requestorID, let token = Self.validToken(serialized, context) else { return nil }
            return (requestor, mvpd, token)
        }
    }

    /// The token when it is valid for the context's requestor and device.
    static func validToken(_ serialized: String, _ context: SSOContext) -> AuthNToken? {
        let (validity, token) = TokenValidity.authN(
            serialized, allowedMvpds: context.allowedMvpds, now: context.now, deviceID: context.deviceID
        )
        return validity.isValid ? token : nil
    }
}
