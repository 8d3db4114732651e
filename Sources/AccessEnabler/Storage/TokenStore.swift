import DecodingWords
import Foundation
import Locking
import PassStorage

/// Persists ``TokenStorage`` in one storage file: the team's shared "pasteboard" on iOS, the app's private
/// "user defaults" on tvOS. Every change is a locked read-modify-write with an atomic replace (PassStorage), so two
/// apps of one team never lose each other's tokens and a crash leaves the last good state.
public struct TokenStore: Sendable {
    /// The storage file.
    public let file: StorageFile
    /// Where the file lives, for events: `team TEAM1234` or `app com.example.tv`.
    public let domain: String

    /// A store over `file`, named `domain` in events.
    public init(file: StorageFile, domain: String) {
        self.file = file
        self.domain = domain
    }

    /// Thrown inside the locked update to skip writing an unchanged value.
    private struct Unchanged: Error {}

    /// Why stored bytes could not be used.
    public struct Unreadable: Error, Sendable, CustomStringConvertible {
        /// Why, in words.
        public var reason: String
        /// The ``reason``.
        public var description: String { reason }
    }

    /// The stored tokens; empty when nothing was ever written.
    public func load() throws -> TokenStorage {
        guard let data = try file.read() else { return TokenStorage() }
        return try Self.decode(data)
    }

    /// Applies `change` to the stored value under the file lock and writes the result atomically. When the change
    /// leaves the value as it was, nothing is written (no fsync for the no-op rules that run at every setRequestor).
    @discardableResult
    public func update<T>(_ change: (inout TokenStorage) -> T) throws -> (result: T, storage: TokenStorage, changed: Bool) {
        var result: T?
        var after = TokenStorage()
        do {
            try file.update { data in
                let before = try data.map(Self.decode) ?? TokenStorage()
                var storage = before
                result = change(&storage)
                after = storage
                guard storage != before || data == nil && !storage.isEmpty else { throw Unchanged() }
                return try Self.encoder.encode(storage)
            }
        } catch is Unchanged {
            return (result!, after, false)
        }
        return (result!, after, true)
    }

    /// The last storages decoded, by their bytes: every call reads the file again (another app may have changed it),
    /// but bytes seen before need no second JSON decode.
    private static let decoded = Mutex<[(data: Data, storage: TokenStorage)]>([])

    /// Reads stored bytes; throws ``Unreadable`` for another version or damaged JSON.
    public static func decode(_ data: Data) throws -> TokenStorage {
        if let hit = decoded.withLock({ $0.first { $0.data == data }?.storage }) { return hit }
        let storage = try decodeAnew(data)
        decoded.withLock { entries in
            entries.insert((data, storage), at: 0)
            if entries.count > 4 { entries.removeLast() }
        }
        return storage
    }

    private static func decodeAnew(_ data: Data) throws -> TokenStorage {
        struct Header: Decodable { var version: Int? }
        let header = try? JSONDecoder().decode(Header.self, from: data)
        guard let version = header?.version else { throw Unreadable(reason: "the token storage is not a versioned JSON document") }
        guard version == TokenStorage.currentVersion else {
            throw Unreadable(reason: "the token storage has version \(version); this SDK reads version \(TokenStorage.currentVersion)")
        }
        do { return try JSONDecoder().decode(TokenStorage.self, from: data) } catch {
            throw Unreadable(reason: "the token storage is damaged: \(DecodingError.words(error))")
        }
    }

    /// The encoder of the stored form (sorted keys, pretty-printed).
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return encoder
    }
}
