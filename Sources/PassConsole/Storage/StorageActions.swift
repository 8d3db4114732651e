import AccessEnabler
import Foundation
import MicroHTTP
import PassHistory
import PassProtocol
import PassStorage

/// The console's storage operations: clear (scoped, with a dry run), undo, export, import. Every change takes a
/// backup first (kept in the history database, so undo works after a restart too) and is written to the audit log.
/// Writes go through the SDK's own ``TokenStore``: the same lock and atomic replace the apps use.
struct StorageActions: Sendable {
    let devices: [ConsoleDevice]
    let history: HistoryDatabase
    let allowedMvpds: [String: Set<String>]
    let verificationKey: TokenVerificationKey?
    let now: @Sendable () -> Date

    struct ClearResult: Encodable, Sendable {
        var removed: [String]
        var sharedBy: [String]
        var backupID: String?
    }

    /// Clears what `scope` names; with `dryRun`, only says what would go.
    func clear(_ scope: ClearScope, apps: [KnownApp], remote: String) async throws -> ClearResult {
        if let problem = scope.problem { throw HTTPError(.badRequest, code: "invalid_scope", message: problem) }
        let domain = try StorageDomain(id: scope.domain, devices: devices)
        let sharedBy = apps.filter { domain.isUsed(by: $0) }.map(\.identity.bundleID).sorted()
        let current = try load(domain)
        var preview = current
        let wouldGo = scope.apply(to: &preview)
        if scope.dryRun ?? false || wouldGo.isEmpty {
            return ClearResult(removed: wouldGo, sharedBy: sharedBy, backupID: nil)
        }
        let backup = try await takeBackup(of: [domain], reason: "clear \(scope.description)")
        let (removed, _, _) = try write(domain) { storage in scope.apply(to: &storage) }
        try await history.audit("clear", detail: "Cleared \(scope.description): \(removed.joined(separator: "; "))", remote: remote)
        return ClearResult(removed: removed, sharedBy: sharedBy, backupID: backup.id)
    }

    /// Puts back the files a backup holds; the undo itself is backed up, so it can be undone too.
    func undo(_ backupID: String, remote: String) async throws -> [String] {
        guard let backup = try await history.backup(backupID) else {
            throw HTTPError(.notFound, code: "unknown_backup", message: "No backup has the ID '\(backupID)' (only the last 50 are kept).")
        }
        let domains = try backup.documents.map { try StorageDomain(id: $0.domain, devices: devices) }
        _ = try await takeBackup(of: domains, reason: "undo of \(backup.reason)")
        for (domain, document) in zip(domains, backup.documents) {
            do {
                _ = try domain.file.update { _ in document.contents }
            } catch {
                throw HTTPError(.internalServerError, code: "storage_write_failed",
                    message: "Could not write \(domain.id).", detail: "\(error)")
            }
        }
        try await history.audit("undo", detail: "Restored \(domains.map(\.id).joined(separator: ", ")) as before: \(backup.reason)",
            remote: remote)
        return domains.map(\.id)
    }

    /// The export file of `domainIDs` (all domains when empty); what `reveal` keeps is written to the audit log.
    func export(_ domainIDs: [String], reveal: RevealChoice, redaction: PersonalDataRedaction, remote: String) async throws
        -> StorageExport
    {
        let domains = domainIDs.isEmpty
            ? try StorageDomain.all(in: devices) : try domainIDs.map { try StorageDomain(id: $0, devices: devices) }
        var redaction = redaction
        let export = StorageExport.make(try domains.map { ($0, try load($0)) }, reveal: reveal, redaction: &redaction, now: now())
        let names = domains.map(\.id).joined(separator: ", ")
        switch reveal {
        case .everything:
            try await history.audit("reveal", detail: "Exported \(names) WITH live tokens and personal data", remote: remote)
        case .personalData:
            try await history.audit("reveal", detail: "Exported \(names) WITH personal data (tokens redacted)", remote: remote)
        case .nothing:
            try await history.audit("export", detail: "Exported \(names) (redacted: tokens; \(export.personalData?.removedText ?? "nothing"))",
                remote: remote)
        }
        return export
    }

    struct ImportResult: Encodable, Sendable {
        var plan: ImportPlan
        var applied: Bool
        var backupID: String?

        enum CodingKeys: String, CodingKey { case format, changes, summary, applied, backupID }
        func encode(to encoder: any Encoder) throws {
            try plan.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(applied, forKey: .applied)
            try container.encode(backupID, forKey: .backupID)
        }
    }

    /// Plans importing `data` into `domainID`; unless `dryRun`, applies it in one atomic write after a backup.
    /// With the `fail` policy, any rejected item stops the import (`422`) and nothing changes.
    func importFile(_ data: Data, into domainID: String, policy: ImportPlan.Policy, dryRun: Bool, remote: String) async throws
        -> ImportResult
    {
        let domain = try StorageDomain(id: domainID, devices: devices)
        let plan = try ImportPlan.make(data, into: domain, current: try load(domain), policy: policy,
            allowedMvpds: allowedMvpds, verificationKey: verificationKey, now: now())
        if policy == .fail, let first = plan.rejected.first {
            throw HTTPError(.unprocessableEntity, code: "import_rejected",
                message: "\(plan.rejected.count) item(s) cannot be imported and the policy is “fail”, so nothing was changed.",
                detail: "\(first.requestorID) / \(first.mvpdID) \(first.item): \(first.reason ?? "")")
        }
        let changing = plan.changes.contains { $0.action == .added || $0.action == .overwritten }
        guard !dryRun, changing else { return ImportResult(plan: plan, applied: false, backupID: nil) }
        let backup = try await takeBackup(of: [domain], reason: "import into \(domain.id)")
        let (applied, _, _) = try write(domain) { storage -> ImportPlan? in
            // Planned again on the value under the lock, so an app's write since the preview is kept.
            guard let again = try? ImportPlan.make(data, into: domain, current: storage, policy: policy,
                allowedMvpds: allowedMvpds, verificationKey: verificationKey, now: now()) else { return nil }
            storage = again.result
            return again
        }
        let final = applied ?? plan
        let summary = final.summary.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        try await history.audit("import", detail: "Imported \(final.format) into \(domain.id): \(summary)", remote: remote)
        return ImportResult(plan: final, applied: true, backupID: backup.id)
    }

    // MARK: - Helpers

    func load(_ domain: StorageDomain) throws -> TokenStorage {
        do { return try domain.store.load() } catch let error as TokenStore.Unreadable {
            throw HTTPError(.conflict, code: "storage_unreadable",
                message: "\(domain.id) cannot be read: \(error.reason). Clear it, or import a good copy over it.")
        } catch {
            throw HTTPError(.internalServerError, code: "storage_read_failed", message: "Could not read \(domain.id).",
                detail: "\(error)")
        }
    }

    func write<T>(_ domain: StorageDomain, _ change: (inout TokenStorage) -> T) throws -> (T, TokenStorage, Bool) {
        do { return try domain.store.update(change) } catch {
            throw HTTPError(.internalServerError, code: "storage_write_failed", message: "Could not write \(domain.id); it is unchanged.",
                detail: "\(error)")
        }
    }

    func takeBackup(of domains: [StorageDomain], reason: String) async throws -> StorageBackup {
        let documents = try domains.map { domain in
            StorageBackup.Document(domain: domain.id, path: domain.file.path, contents: try domain.file.read())
        }
        let backup = StorageBackup(at: now(), reason: reason, documents: documents)
        try await history.saveBackup(backup)
        return backup
    }
}
