import Foundation

/// The single-token storage of SDKs before 1.7, versions 1 and 2 (spec §8.6), which the ``TokenImporter`` reads.
///
/// Before 1.7 the SDK kept one flat key/value table (AND18: an SQLite table `storage(_id, key, value)`), every value
/// Base64-encoded. PassConsole keeps the same table as ``entries`` in a JSON document under `DIR/legacy/`:
///
/// | key | value (before Base64) |
/// | --- | --- |
/// | `canAuthenticate` | `true` / `false` |
/// | `currentMvpdId` | the cached MVPD selection |
/// | `authnToken` (v2), `authenticationToken` (v1) | the global token, valid for every Programmer |
/// | `<requestorId>_authnToken` | a Programmer's own token ("Authentication per Requestor") |
/// | `metadataToken` | user metadata of the global token |
/// | `<requestorId>_metadataToken` | user metadata of that Programmer's token |
///
/// ```json
/// {"version": 2, "entries": {"currentMvpdId": "TU9DSw==", "authnToken": "PHNpZ25hdHVyZUluZm8+…"}}
/// ```
///
/// The typed accessors below decode and encode the values; ``entries`` stays the raw table so that unknown keys
/// survive a round trip.
public struct LegacyTokenStorage: Codable, Sendable, Equatable {
    /// The known single-token layouts.
    public enum Version: Int, Codable, Sendable, CaseIterable, Comparable {
        /// The first layout: the global token under `authenticationToken`.
        case v1 = 1
        /// The second layout: the global token under `authnToken`.
        case v2 = 2

        /// Orders by version number.
        public static func < (lhs: Version, rhs: Version) -> Bool { lhs.rawValue < rhs.rawValue }

        /// The key of the global authN token in this layout.
        public var globalAuthnTokenKey: String {
            switch self {
            case .v1: "authenticationToken"
            case .v2: "authnToken"
            }
        }
    }

    /// The key names shared by both layouts.
    public enum Key {
        /// `canAuthenticate`.
        public static let canAuthenticate = "canAuthenticate"
        /// `currentMvpdId`.
        public static let currentMvpdID = "currentMvpdId"
        /// `metadataToken`, the global token's user metadata.
        public static let metadata = "metadataToken"
        /// The suffix of a Programmer's own token key, `_authnToken`.
        public static let requestorAuthnTokenSuffix = "_authnToken"
        /// The suffix of a Programmer's own metadata key, `_metadataToken`.
        public static let requestorMetadataSuffix = "_metadataToken"
    }

    /// The layout version.
    public var version: Version
    /// The raw table: key → Base64 of the value.
    public var entries: [String: String]

    /// Creates a store from its raw table.
    public init(version: Version, entries: [String: String] = [:]) {
        self.version = version
        self.entries = entries
    }

    // MARK: - Raw values

    /// The decoded value of `key`; `nil` when absent or not Base64 of UTF-8 text.
    public func value(forKey key: String) -> String? {
        guard let encoded = entries[key], let data = Data(base64Encoded: encoded, options: .ignoreUnknownCharacters)
        else { return nil }
        return String(data: data, encoding: .utf8)
    }

    /// Stores `value` Base64-encoded under `key`, or removes the key for `nil`.
    public mutating func setValue(_ value: String?, forKey key: String) {
        entries[key] = value.map { Data($0.utf8).base64EncodedString() }
    }

    // MARK: - Typed values

    /// The old `canAuthenticate` flag; `false` when missing (as AND18 reads it).
    public var canAuthenticate: Bool {
        get { ["true", "1", "yes"].contains(value(forKey: Key.canAuthenticate)?.lowercased() ?? "") }
        set { setValue(newValue ? "true" : "false", forKey: Key.canAuthenticate) }
    }

    /// The old cached MVPD selection.
    public var currentMvpdID: String? {
        get { value(forKey: Key.currentMvpdID) }
        set { setValue(newValue, forKey: Key.currentMvpdID) }
    }

    /// The global token, under ``Version/globalAuthnTokenKey``.
    public var globalAuthnToken: String? {
        get { value(forKey: version.globalAuthnTokenKey) }
        set { setValue(newValue, forKey: version.globalAuthnTokenKey) }
    }

    /// The global token's user metadata.
    public var globalMetadata: String? {
        get { value(forKey: Key.metadata) }
        set { setValue(newValue, forKey: Key.metadata) }
    }

    /// A Programmer's own token (`<requestorId>_authnToken`).
    public func authnToken(requestor: String) -> String? {
        value(forKey: requestor + Key.requestorAuthnTokenSuffix)
    }

    /// Stores or removes a Programmer's own token.
    public mutating func setAuthnToken(_ token: String?, requestor: String) {
        setValue(token, forKey: requestor + Key.requestorAuthnTokenSuffix)
    }

    /// A Programmer's own user metadata (`<requestorId>_metadataToken`).
    public func metadata(requestor: String) -> String? {
        value(forKey: requestor + Key.requestorMetadataSuffix)
    }

    /// Stores or removes a Programmer's own user metadata.
    public mutating func setMetadata(_ metadata: String?, requestor: String) {
        setValue(metadata, forKey: requestor + Key.requestorMetadataSuffix)
    }

    /// The Programmers that have a token of their own, sorted.
    public var requestorsWithTokens: [String] {
        entries.keys.compactMap { key -> String? in
            guard key.hasSuffix(Key.requestorAuthnTokenSuffix) else { return nil }
            let requestor = String(key.dropLast(Key.requestorAuthnTokenSuffix.count))
            return requestor.isEmpty ? nil : requestor
        }
        .sorted()
    }
}

// MARK: - StorageGeneration

extension LegacyTokenStorage: StorageGeneration {
    /// ``version`` as a number.
    public var storageVersion: Int { version.rawValue }

    /// The global token first (if any), then each Programmer's own token sorted by requestor ID.
    public var legacyAuthnTokens: [LegacyAuthnToken] {
        var tokens: [LegacyAuthnToken] = []
        if let global = globalAuthnToken {
            tokens.append(LegacyAuthnToken(owner: .global, serialized: global, userMeta: globalMetadata))
        }
        for requestor in requestorsWithTokens {
            guard let token = authnToken(requestor: requestor) else { continue }
            let meta = metadata(requestor: requestor)
            tokens.append(LegacyAuthnToken(owner: .requestor(requestor), serialized: token, userMeta: meta))
        }
        return tokens
    }
}
