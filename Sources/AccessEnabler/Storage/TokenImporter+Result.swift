import Foundation
import PassProtocol

/// What one run of the ``TokenImporter`` did, for events and the console.
public enum ImportResult: Sendable, Equatable, Codable {
    /// A token was imported.
    case imported(ImportedToken)
    /// Nothing was done: the current requestor already holds a valid authN token of this MVPD.
    case currentTokenValid(mvpdID: String)
    /// No older storage, or none holding an authN token.
    case nothingToImport
    /// Older tokens were found, none passed; one entry per token tried, in the order tried.
    case noUsableToken([ImportRejection])

    /// The imported token, if any.
    public var importedToken: ImportedToken? {
        if case .imported(let token) = self { token } else { nil }
    }

    /// A sentence for logs and the console.
    public var explanation: String {
        switch self {
        case .imported(let token):
            "imported the \(token.owner) token of storage v\(token.storageVersion) for \(token.requestorID) "
                + "with \(token.mvpdID)"
        case .currentTokenValid(let mvpd): "not needed: a valid token with \(mvpd) is already stored"
        case .nothingToImport: "no older storage holds an authentication token"
        case .noUsableToken(let rejections):
            "no usable token: " + rejections.map(\.explanation).joined(separator: "; ")
        }
    }
}

/// An authN token the importer carried over.
public struct ImportedToken: Sendable, Equatable, Codable {
    /// The storage version it came from.
    public var storageVersion: Int
    /// Where the older store kept it.
    public var owner: LegacyAuthnToken.Owner
    /// The requestor named inside the token, whose bucket received it.
    public var requestorID: String
    /// The MVPD that issued it, now that requestor's current MVPD.
    public var mvpdID: String
    /// The old `canAuthenticate` flag, stored with it.
    public var canAuthenticate: Bool
    /// When the token expires.
    public var expires: Date

    /// Creates a description of an imported token.
    public init(
        storageVersion: Int, owner: LegacyAuthnToken.Owner, requestorID: String, mvpdID: String,
        canAuthenticate: Bool, expires: Date
    ) {
        self.storageVersion = storageVersion
        self.owner = owner
        self.requestorID = requestorID
        self.mvpdID = mvpdID
        self.canAuthenticate = canAuthenticate
        self.expires = expires
    }
}

/// An older token the importer did not take, and why.
public struct ImportRejection: Sendable, Equatable, Codable {
    /// Why a token was not imported.
    public enum Reason: Sendable, Equatable, Codable {
        /// The token string could not be read.
        case unreadable(String)
        /// The token had expired.
        case expired(Date)
        /// The token's MVPD is not the old `currentMvpdId` (or none was stored).
        case mvpdNotCurrent(mvpdID: String, currentMvpdID: String?)
        /// The token's MVPD is not among the current requestor's MVPDs.
        case mvpdNotAllowed(mvpdID: String)
    }

    /// The storage version the token was found in.
    public var storageVersion: Int
    /// Where the older store kept it.
    public var owner: LegacyAuthnToken.Owner
    /// Why it was not imported.
    public var reason: Reason

    /// Creates a rejection.
    public init(storageVersion: Int, owner: LegacyAuthnToken.Owner, reason: Reason) {
        self.storageVersion = storageVersion
        self.owner = owner
        self.reason = reason
    }

    /// `v2 global token: expired at …`.
    public var explanation: String {
        let why =
            switch reason {
            case .unreadable(let detail): "unreadable (\(detail))"
            case .expired(let date): "expired at \(TokenDate.format(date))"
            case .mvpdNotCurrent(let mvpd, let current): "issued by \(mvpd), not the cached MVPD \(current ?? "(none)")"
            case .mvpdNotAllowed(let mvpd): "issued by \(mvpd), which the requestor does not integrate"
            }
        return "v\(storageVersion) \(owner) token: \(why)"
    }
}
