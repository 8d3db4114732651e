import Foundation
import PostgresNIO

extension PostgresLocation {
    /// Why the TLS settings cannot be used.
    public struct TLSSetupError: Error, CustomStringConvertible {
        public let description: String
    }

    /// NIOSSL's client configuration for ``sslMode`` and ``sslRootCert``; `nil` for `disable`.
    ///
    /// `prefer` and `require` encrypt without checking the certificate (as libpq does without a root certificate);
    /// `verify-ca` checks that a trusted CA signed it; `verify-full` also that it was issued for ``host``. The CA is
    /// ``sslRootCert``'s (PEM), else the system's trusted ones.
    /// - Throws: ``TLSSetupError`` when the `sslrootcert` file cannot be read or holds no certificate.
    public func tlsConfiguration() throws -> TLSConfiguration? {
        guard sslMode != .disable else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch sslMode {
        case .disable: return nil
        case .prefer, .require: configuration.certificateVerification = .none
        case .verifyCA: configuration.certificateVerification = .noHostnameVerification
        case .verifyFull: configuration.certificateVerification = .fullVerification
        }
        if let sslRootCert, sslMode == .verifyCA || sslMode == .verifyFull {
            let certificates: [NIOSSLCertificate]
            do {
                certificates = try NIOSSLCertificate.fromPEMFile(sslRootCert)
            } catch {
                throw TLSSetupError(description: "cannot read the CA certificate sslrootcert=\(sslRootCert): \(error)")
            }
            guard !certificates.isEmpty else {
                throw TLSSetupError(description: "sslrootcert=\(sslRootCert) holds no PEM certificate")
            }
            configuration.trustRoots = .certificates(certificates)
        }
        return configuration
    }

    /// The TLS a single connection (the first, checking the server and the credentials) is made with.
    func connectionTLS() throws -> PostgresConnection.Configuration.TLS {
        guard let configuration = try tlsConfiguration() else { return .disable }
        let context = try NIOSSLContext(configuration: configuration)
        return sslMode == .prefer ? .prefer(context) : .require(context)
    }

    /// The TLS the pool's connections are made with.
    func poolTLS() throws -> PostgresClient.Configuration.TLS {
        guard let configuration = try tlsConfiguration() else { return .disable }
        return sslMode == .prefer ? .prefer(configuration) : .require(configuration)
    }
}
