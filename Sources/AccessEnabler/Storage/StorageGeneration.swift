import Foundation

/// An older generation of token storage that the ``TokenImporter`` can read.
///
/// The importer knows nothing about how an older store is laid out: it asks each generation for the few facts the
/// import rule needs (spec §8.6) — the cached MVPD, the `canAuthenticate` flag and the authN tokens with their user
/// metadata. ``LegacyTokenStorage`` (versions 1 and 2) conforms today; when a later SDK moves to a new layout, the
/// current ``TokenStorage`` can conform too, and the importer reads it without change.
public protocol StorageGeneration: Sendable {
    /// The storage version; the importer tries generations newest first.
    var storageVersion: Int { get }
    /// The old `canAuthenticate` flag, carried over with an imported token.
    var canAuthenticate: Bool { get }
    /// The old cached MVPD selection (`currentMvpdId`); only a token of this MVPD is imported.
    var currentMvpdID: String? { get }
    /// Every authN token of this generation, each with where it was kept and its user metadata.
    var legacyAuthnTokens: [LegacyAuthnToken] { get }
}

/// An authN token found in an older storage generation.
public struct LegacyAuthnToken: Sendable, Hashable, Codable {
    /// Where an older store kept a token.
    public enum Owner: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The unprefixed, device-wide token of the single-token layouts (`GenericRequestor` in AND18).
        case global
        /// A token kept under `<requestorId>_…` keys.
        case requestor(String)

        /// `global` or `requestor REF30`.
        public var description: String {
            switch self {
            case .global: "global"
            case .requestor(let id): "requestor \(id)"
            }
        }
    }

    /// Where the token was kept.
    public var owner: Owner
    /// The token string (spec §6.1).
    public var serialized: String
    /// The user metadata JSON kept with it, if any.
    public var userMeta: String?

    /// Creates a found token.
    public init(owner: Owner, serialized: String, userMeta: String? = nil) {
        self.owner = owner
        self.serialized = serialized
        self.userMeta = userMeta
    }
}
