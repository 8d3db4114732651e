import Foundation
import MicroHTTP

/// A certificate authority of this machine, made once with the `openssl` command and kept in a folder, that issues the
/// proxy's TLS certificate: a device (or a test) that trusts the CA's certificate — offered at `GET /_proxy/ca.pem` —
/// trusts the proxy. The CA's key never leaves the folder (mode 0600).
public struct LocalCA: Sendable {
    public let folder: URL
    /// The CA's certificate, PEM.
    public let certificatePEM: String

    var keyFile: URL { folder.appendingPathComponent("ca.key") }
    var certificateFile: URL { folder.appendingPathComponent("ca.pem") }

    /// The CA in `folder`, made there first when the folder holds none.
    public static func loadOrCreate(in folder: URL) throws -> LocalCA {
        let fileManager = FileManager.default
        try fileManager.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let key = folder.appendingPathComponent("ca.key")
        let certificate = folder.appendingPathComponent("ca.pem")
        if !fileManager.fileExists(atPath: key.path) || !fileManager.fileExists(atPath: certificate.path) {
            try openssl([
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key.path,
                "-out", certificate.path, "-days", "825", "-subj", "/CN=PassConsole local CA (\(ProcessInfo.processInfo.hostName))",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
            try fileManager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key.path)
        }
        return LocalCA(folder: folder, certificatePEM: try String(contentsOf: certificate, encoding: .utf8))
    }

    /// A server certificate for `hosts` (IP addresses and DNS names), signed by this CA, with its new key.
    public func issue(hosts: [String]) throws -> TLSIdentity {
        let work = folder.appendingPathComponent("issue-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: work) }
        let key = work.appendingPathComponent("server.key")
        let request = work.appendingPathComponent("server.csr")
        let certificate = work.appendingPathComponent("server.pem")
        let extensions = work.appendingPathComponent("server.ext")
        let names = hosts.map { Self.isIPAddress($0) ? "IP:\($0)" : "DNS:\($0)" }.joined(separator: ",")
        try Data("""
            subjectAltName=\(names)
            basicConstraints=CA:FALSE
            keyUsage=critical,digitalSignature,keyEncipherment
            extendedKeyUsage=serverAuth
            """.utf8).write(to: extensions)
        try Self.openssl([
            "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key.path,
            "-out", request.path, "-subj", "/CN=\(hosts.first ?? "localhost")",
        ])
        try Self.openssl([
            "x509", "-req", "-in", request.path, "-CA", certificateFile.path, "-CAkey", keyFile.path, "-set_serial",
            String(UInt64.random(in: 1...UInt64(Int64.max))), "-out", certificate.path, "-days", "397", "-extfile", extensions.path,
        ])
        return TLSIdentity(
            privateKeyPEM: try String(contentsOf: key, encoding: .utf8),
            certificateChainPEM: try String(contentsOf: certificate, encoding: .utf8) + certificatePEM)
    }

    static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || host.split(separator: ".").count == 4 && host.split(separator: ".").allSatisfy { UInt8($0) != nil }
    }

    /// Runs `openssl` with `arguments`. - Throws: ``LocalCAError`` with what openssl said.
    static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw LocalCAError(message: "Cannot run openssl (is it installed? make deps installs it): \(error)")
        }
        let said = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw LocalCAError(message: "openssl \(arguments.first ?? "") failed: \(String(decoding: said, as: UTF8.self))")
        }
    }
}

/// Why the local CA could not make a certificate.
public struct LocalCAError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
