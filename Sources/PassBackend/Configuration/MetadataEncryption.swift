import Foundation
import PassProtocol
import _CryptoExtras

/// Which user-metadata items a Programmer receives encrypted, and its public key (spec §6.5: "Encrypted values:
/// Base64 of RSA ciphertext made with the Programmer's public certificate"; the docs name `encryptedZip`).
///
/// `Config/demo.json`: `"metadataEncryption": {"items": ["encryptedZip"], "publicKey": "-----BEGIN PUBLIC KEY-----…"}`.
/// The value encrypted is the item's text (a string as it is, other values as compact JSON), with RSA-OAEP-SHA256;
/// the Programmer decrypts it with its private key (the demo's is `Config/keys/REF30-metadata.pem`).
public struct MetadataEncryption: Codable, Sendable, Equatable {
    /// The user-metadata item names sent encrypted.
    public var items: [String]
    /// The Programmer's RSA public key (PEM, 2048 bits or more).
    public var publicKey: String

    /// Creates the setting.
    public init(items: [String], publicKey: String) {
        self.items = items
        self.publicKey = publicKey
    }

    /// Why the key cannot be used, or nil.
    var problem: String? {
        do {
            _ = try _RSA.Encryption.PublicKey(pemRepresentation: publicKey)
            return nil
        } catch {
            return "its metadataEncryption.publicKey is not an RSA public key (PEM, 2048 bits or more)"
        }
    }

    /// `metadata` with ``items`` encrypted and named in `encrypted`. An item too long for one RSA block (190 bytes with
    /// a 2048-bit key) cannot be sent encrypted and is left out rather than sent in clear.
    func apply(to metadata: UserMetadata) -> UserMetadata {
        guard let key = try? _RSA.Encryption.PublicKey(pemRepresentation: publicKey) else { return metadata }
        var result = metadata
        for name in items {
            guard let value = metadata.data[name] else { continue }
            if let ciphertext = try? key.encrypt(Data(value.compactText.utf8), padding: .PKCS1_OAEP_SHA256) {
                result.data[name] = .string(ciphertext.base64EncodedString())
                if !result.encrypted.contains(name) { result.encrypted.append(name) }
            } else {
                result.data[name] = nil
                result.encrypted.removeAll { $0 == name }
            }
        }
        return result
    }
}
