import Crypto
import Foundation

/// The backend's private key for signing tokens: ECDSA on P-256 with SHA-256.
///
/// Adobe signs media tokens with RSA (spec §6.3, open question 7); PassConsole's stand-in uses P-256 because
/// swift-crypto offers it on every platform. Only the backend holds this key; verifiers get ``publicKey``.
///
/// ```swift
/// let key = TokenSigningKey()
/// let signed = SignedToken.sign(mediaToken, with: key)
/// signed.verify(with: key.publicKey)   // true
/// ```
public struct TokenSigningKey: Sendable {
    /// The 32-byte raw scalar, for compact storage.
    ///
    /// The key is kept as bytes because swift-crypto's key types are not `Sendable` on Linux (they wrap
    /// BoringSSL objects); the bytes were validated when this value was created.
    public let rawRepresentation: Data
    private let built: BuiltKey

    /// Creates a new random key.
    public init() {
        self.init(key: P256.Signing.PrivateKey())
    }

    /// Restores a key from its 32-byte raw scalar.
    ///
    /// - Throws: A swift-crypto error when the bytes are not a valid P-256 scalar.
    public init(rawRepresentation: Data) throws {
        self.init(key: try P256.Signing.PrivateKey(rawRepresentation: rawRepresentation))
    }

    /// Restores a key from PEM (`-----BEGIN PRIVATE KEY-----` PKCS#8 or `EC PRIVATE KEY`).
    ///
    /// - Throws: A swift-crypto error when the text is not a P-256 private key.
    public init(pemRepresentation: String) throws {
        self.init(key: try P256.Signing.PrivateKey(pemRepresentation: pemRepresentation))
    }

    private init(key: P256.Signing.PrivateKey) {
        rawRepresentation = key.rawRepresentation
        built = BuiltKey(key: key, publicKey: TokenVerificationKey(publicKey: key.publicKey))
    }

    /// The swift-crypto key (built once: rebuilding it per signature cost ~15% of a media-token request).
    public var privateKey: P256.Signing.PrivateKey { built.key }

    /// The key as PKCS#8 PEM.
    public var pemRepresentation: String { privateKey.pemRepresentation }

    /// The matching public key, for whoever verifies tokens.
    public var publicKey: TokenVerificationKey { built.publicKey }

    /// Signs `text`'s UTF-8 bytes and returns the DER signature, Base64-encoded.
    func signatureBase64(for text: String) -> String {
        // swift-crypto's ECDSA is randomized, so signing twice gives two valid, different signatures.
        let signature = try? privateKey.signature(for: Data(text.utf8))
        return signature?.derRepresentation.base64EncodedString() ?? ""
    }
}

/// The built swift-crypto key, shared read-only between threads (BoringSSL signs with a const key).
private final class BuiltKey: @unchecked Sendable {
    let key: P256.Signing.PrivateKey
    let publicKey: TokenVerificationKey

    init(key: P256.Signing.PrivateKey, publicKey: TokenVerificationKey) {
        self.key = key
        self.publicKey = publicKey
    }
}

/// A public key that checks token signatures made with a ``TokenSigningKey``.
///
/// Given to the SDK side, the media-token verifier and the console; it cannot sign.
public struct TokenVerificationKey: Sendable, Equatable {
    /// The key's X9.63 encoding (`04 || x || y`); kept as bytes for the same reason as ``TokenSigningKey``.
    public let x963Representation: Data

    /// Wraps a swift-crypto public key.
    public init(publicKey: P256.Signing.PublicKey) {
        x963Representation = publicKey.x963Representation
    }

    /// Restores a key from PEM (`-----BEGIN PUBLIC KEY-----`).
    ///
    /// - Throws: A swift-crypto error when the text is not a P-256 public key.
    public init(pemRepresentation: String) throws {
        self.init(publicKey: try P256.Signing.PublicKey(pemRepresentation: pemRepresentation))
    }

    /// The swift-crypto key, rebuilt from ``x963Representation``.
    public var publicKey: P256.Signing.PublicKey {
        // Cannot fail: the bytes came from a key swift-crypto had accepted.
        try! P256.Signing.PublicKey(x963Representation: x963Representation)
    }

    /// The key as SubjectPublicKeyInfo PEM.
    public var pemRepresentation: String { publicKey.pemRepresentation }

    /// Whether `signatureBase64` is a valid Base64 DER signature of `text`'s UTF-8 bytes.
    func isValidSignature(_ signatureBase64: String, for text: String) -> Bool {
        guard let der = Data(base64Encoded: signatureBase64),
            let signature = try? P256.Signing.ECDSASignature(derRepresentation: der)
        else { return false }
        return publicKey.isValidSignature(signature, for: Data(text.utf8))
    }
}
