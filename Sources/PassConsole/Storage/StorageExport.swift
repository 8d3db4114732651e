import AccessEnabler
import Foundation

/// The console's storage export file: one or more storage domains as the SDK stores them, with a header saying
/// what it is. Redacted unless the person chose to include live tokens (which the audit log records).
struct StorageExport: Codable, Sendable {
    static let formatName = "passconsole-storage"
    static let currentFormatVersion = 1

    struct Domain: Codable, Sendable {
        var domain: String
        var storage: TokenStorage
    }

    var format: String = StorageExport.formatName
    var formatVersion: Int = StorageExport.currentFormatVersion
    var exportedAt: Date
    /// True when token bodies were replaced by previews: such a file documents, it cannot be imported.
    var redacted: Bool
    /// What was done to personal data in user metadata (absent in files of older consoles).
    var personalData: PersonalDataRedaction.Report?
    var domains: [Domain]

    /// The export of `domains` as stored now: tokens as previews unless `reveal` is `.everything`, personal data in
    /// user metadata replaced by `redaction` unless `reveal` keeps it.
    static func make(_ domains: [(StorageDomain, TokenStorage)], reveal: RevealChoice, redaction: inout PersonalDataRedaction,
        now: Date) -> StorageExport
    {
        let kept = domains.map { domain, storage in
            let tokens = reveal == .everything ? storage : redact(storage)
            return Domain(domain: domain.id, storage: reveal.revealsPersonalData ? tokens : redaction.redact(tokens))
        }
        return StorageExport(exportedAt: now, redacted: reveal != .everything,
            personalData: redaction.report(revealed: reveal.revealsPersonalData), domains: kept)
    }

    /// `storage` with every token replaced by its preview.
    static func redact(_ storage: TokenStorage) -> TokenStorage {
        var copy = storage
        for (requestor, bucket) in storage.requestors {
            for (mvpd, tokens) in bucket.mvpds {
                var redacted = tokens
                redacted.authnToken = tokens.authnToken.map(TokenJudge.preview)
                redacted.authzTokens = tokens.authzTokens.mapValues(TokenJudge.preview)
                copy.requestors[requestor]?.mvpds[mvpd] = redacted
            }
        }
        copy.passiveAuthnCookies = storage.passiveAuthnCookies.mapValues { $0.mapValues { _ in ["[redacted]"] } }
        return copy
    }
}
