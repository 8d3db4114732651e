import DecodingWords
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
    let history: any EventHistory
    let allowedMvpds: [String: Set<String>]
    let verificationKey: TokenVerificationKey?
    let now: @Sendable () -> Date

    struct ClearResult: Encodable, Sendable {
        var removed: [String]
        var sharedBy: [String]
        var backupID: String?
        /// What the clear does to each app that reads the storage (``Console/clearEffects(_:)``), in sentences.
        var effects: [String] = []
    }

    /// Clears what `scope` names; with `dryRun`, only says what would go. The whole action holds the device folder's
    /// action lock (``DeviceActionLock``).
    func clear(_ scope: ClearScope, apps: [KnownApp], by actor: AuditActor) async throws -> ClearResult {
        if let problem = scope.problem { throw HTTPError(.badRequest, code: "invalid_scope", message: problem) }
        let domain = try StorageDomain(id: scope.domain, devices: devices)
        return try await serialised([domain]) { try await clear(scope, in: domain, apps: apps, by: actor) }
    }

    private func clear(_ scope: ClearScope, in domain: StorageDomain, apps: [KnownApp], by actor: AuditActor) async throws -> ClearResult {
        let sharedBy = apps.filter { domain.isUsed(by: $0) }.map(\.identity.bundleID).sorted()
        let (current, damaged) = try loadOrDamaged(domain)
        if let damaged {
            // Nothing in a damaged file can be read, so nothing in it can be cleared one by one: the whole file is
            // replaced by an empty one, its bytes kept in the backup (undo puts them back).
            let what = "the whole storage file, which cannot be read (\(damaged.reason)): replaced by an empty one"
            guard !(scope.dryRun ?? false) else { return ClearResult(removed: [what], sharedBy: sharedBy, backupID: nil) }
            let backup = try await replaceDamaged(domain, with: TokenStorage(), reason: "clear \(scope.description)")
            try await history.audit("clear", detail: "Cleared \(scope.description): \(what)", by: actor)
            return ClearResult(removed: [what], sharedBy: sharedBy, backupID: backup.id)
        }
        var preview = current
        let wouldGo = scope.apply(to: &preview)
        if scope.dryRun ?? false || wouldGo.isEmpty {
            return ClearResult(removed: wouldGo, sharedBy: sharedBy, backupID: nil)
        }
        let (removed, backup) = try await recordedChange(domain, reason: "clear \(scope.description)") { storage in
            scope.apply(to: &storage)
        }
        try await history.audit("clear", detail: "Cleared \(scope.description): \(removed.joined(separator: "; "))", by: actor)
        return ClearResult(removed: removed, sharedBy: sharedBy, backupID: backup.id)
    }

    /// What an undo did: per domain, what was put back, what was removed again and what was kept, and why.
    struct UndoResult: Encodable, Sendable {
        /// The domains it wrote.
        var restored: [String]
        var items: [StorageUndo.Item]
        /// The audit sentence.
        var summary: String
        var backupID: String?
        var dryRun: Bool
    }

    /// Undoes the change a backup was taken for, merged with what happened since (``StorageUndo``): what the change
    /// removed comes back where the slot is still empty, what was stored since is kept. The undo is itself backed
    /// up, so it can be undone too. With `dryRun`, only says what it would do.
    func undo(_ backupID: String, dryRun: Bool = false, by actor: AuditActor) async throws -> UndoResult {
        let domains = try await backupDomains(backupID)
        return try await serialised(domains) { try await undoSerialised(backupID, dryRun: dryRun, by: actor) }
    }

    /// The domains the backup `backupID` holds.
    private func backupDomains(_ backupID: String) async throws -> [StorageDomain] {
        guard let backup = try await history.backup(backupID) else {
            throw HTTPError(.notFound, code: "unknown_backup", message: "No backup has the ID '\(backupID)' (only the last 50 are kept).")
        }
        return try backup.documents.map { try StorageDomain(id: $0.domain, devices: devices) }
    }

    private func undoSerialised(_ backupID: String, dryRun: Bool, by actor: AuditActor) async throws -> UndoResult {
        guard let backup = try await history.backup(backupID) else {
            throw HTTPError(.notFound, code: "unknown_backup", message: "No backup has the ID '\(backupID)' (only the last 50 are kept).")
        }
        let domains = try backup.documents.map { try StorageDomain(id: $0.domain, devices: devices) }
        // A backup of a file that could not be read (a clear or import replaced it whole) goes back whole: its bytes
        // cannot be merged with anything.
        let documents = try backup.documents.map { document in
            let damaged = document.contents.map { (try? TokenStore.decode($0)) == nil } ?? false
            return (document, damaged: damaged, before: damaged ? TokenStorage() : try Self.decoded(document.contents, document.domain, "backup"),
                // A change that put damaged bytes back (the undo of such a replace) left nothing readable to merge with.
                after: damaged ? nil : document.after.flatMap { try? TokenStore.decode($0) })
        }
        var items: [StorageUndo.Item] = []
        let damagedItem = { (domain: StorageDomain) in
            StorageUndo.Item(domain: domain.id, item: "the whole storage file", action: .restored,
                reason: "the change replaced a file that could not be read; undo puts its bytes back as they were")
        }
        if dryRun {
            for (domain, document) in zip(domains, documents) {
                if document.damaged { items.append(damagedItem(domain)); continue }
                items += StorageUndo(domain: domain.id, before: document.before, after: document.after, current: try load(domain)).items
            }
            let summary = StorageUndo.sentence(items)
            return UndoResult(restored: [], items: items, summary: summary, backupID: nil, dryRun: true)
        }
        var undoBackup: StorageBackup?
        for (domain, document) in zip(domains, documents) {
            if document.damaged {
                undoBackup = try await restoreWhole(domain, document.0, reason: "undo of \(backup.reason)", backupID: undoBackup?.id)
                items.append(damagedItem(domain))
                continue
            }
            // A file damaged since holds nothing an app could use, so nothing in it is kept: the backup goes back whole.
            if (try? domain.store.load()) == nil, (try? domain.file.read()) != nil {
                undoBackup = try await restoreWhole(domain, document.0, reason: "undo of \(backup.reason)", backupID: undoBackup?.id)
                items.append(StorageUndo.Item(domain: domain.id, item: "the whole storage file", action: .restored,
                    reason: "the file could not be read since the change, so nothing in it could be kept"))
                continue
            }
            let (merged, taken) = try await recordedChange(domain, reason: "undo of \(backup.reason)", backupID: undoBackup?.id) {
                storage -> [StorageUndo.Item] in
                let undo = StorageUndo(domain: domain.id, before: document.before, after: document.after, current: storage)
                storage = undo.result
                return undo.items
            }
            items += merged
            undoBackup = taken
        }
        let summary = StorageUndo.sentence(items)
        try await history.audit("undo", detail: "Undo of \(backup.reason) in \(domains.map(\.id).joined(separator: ", ")): \(summary)",
            by: actor)
        return UndoResult(restored: domains.map(\.id), items: items, summary: summary, backupID: undoBackup?.id, dryRun: false)
    }

    /// Replaces a file that cannot be read with `storage`, whole, its bytes kept in the backup.
    private func replaceDamaged(_ domain: StorageDomain, with storage: TokenStorage, reason: String) async throws -> StorageBackup {
        let document = StorageBackup.Document(domain: domain.id, path: domain.file.path, contents: try TokenStore.encoder.encode(storage))
        return try await restoreWhole(domain, document, reason: reason, backupID: nil)
    }

    /// Writes a backed-up document back as it was (under the storage lock), after backing up what is there now: taken
    /// before the write (so a failed write loses nothing), then saved again with the bytes the write replaced, read
    /// under the lock, when an app wrote in between (as ``recordedChange(_:reason:backupID:_:)`` does).
    private func restoreWhole(_ domain: StorageDomain, _ document: StorageBackup.Document, reason: String, backupID: String?)
        async throws -> StorageBackup
    {
        var backup = StorageBackup(at: now(), reason: reason, documents: [])
        if let backupID, let kept = try await history.backup(backupID) { backup = kept }
        let original = try domain.file.read()
        backup.documents.append(StorageBackup.Document(domain: domain.id, path: domain.file.path, contents: original, after: document.contents))
        try await history.saveBackup(backup)
        var replaced: Data?
        do {
            _ = try domain.file.update { current in
                replaced = current
                return document.contents
            }
        } catch {
            throw HTTPError(.internalServerError, code: "storage_write_failed", message: "Could not write \(domain.id).", detail: "\(error)")
        }
        if replaced != original {
            backup.documents[backup.documents.count - 1] = StorageBackup.Document(domain: domain.id, path: domain.file.path,
                contents: replaced, after: document.contents)
            try await history.saveBackup(backup)
        }
        return backup
    }

    /// A backed-up document as storage: a missing file is empty storage.
    /// - Throws: `409 backup_unreadable` when the bytes are not storage this SDK reads (merging needs to read them).
    static func decoded(_ data: Data?, _ domain: String, _ what: String) throws -> TokenStorage {
        guard let data else { return TokenStorage() }
        do { return try TokenStore.decode(data) } catch {
            throw HTTPError(.conflict, code: "backup_unreadable",
                message: "The \(what) of \(domain) is not storage this SDK reads, so it cannot be merged with what apps stored since; "
                    + "nothing was changed. Import the file by hand if you need it.",
                detail: (error as? TokenStore.Unreadable)?.reason ?? DecodingError.words(error))
        }
    }

    /// The export file of `domainIDs` (all domains when empty); what `reveal` keeps is written to the audit log.
    func export(_ domainIDs: [String], reveal: RevealChoice, redaction: PersonalDataRedaction, by actor: AuditActor) async throws
        -> StorageExport
    {
        let domains = domainIDs.isEmpty
            ? try StorageDomain.all(in: devices) : try domainIDs.map { try StorageDomain(id: $0, devices: devices) }
        var redaction = redaction
        let export = StorageExport.make(try domains.map { ($0, try load($0)) }, reveal: reveal, redaction: &redaction, now: now())
        let names = domains.map(\.id).joined(separator: ", ")
        switch reveal {
        case .everything:
            try await history.audit("reveal", detail: "Exported \(names) WITH live tokens and personal data", by: actor)
        case .personalData:
            try await history.audit("reveal", detail: "Exported \(names) WITH personal data (tokens redacted)", by: actor)
        case .nothing:
            try await history.audit("export", detail: "Exported \(names) (redacted: tokens; \(export.personalData?.removedText ?? "nothing"))",
                by: actor)
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
    /// With the `fail` policy, any rejected item stops the import (`422`) and nothing changes. Tokens the domain's
    /// apps (`readers`, by ``StorageDomain/isUsed(by:)``) will refuse are flagged and left out unless `includeRefused`.
    func importFile(
        _ data: Data, into domainID: String, policy: ImportPlan.Policy, includeRefused: Bool = false, apps: [KnownApp],
        dryRun: Bool, by actor: AuditActor
    ) async throws -> ImportResult {
        let domain = try StorageDomain(id: domainID, devices: devices)
        return try await serialised([domain]) {
            try await importFile(data, into: domain, policy: policy, includeRefused: includeRefused, apps: apps, dryRun: dryRun, by: actor)
        }
    }

    private func importFile(
        _ data: Data, into domain: StorageDomain, policy: ImportPlan.Policy, includeRefused: Bool, apps: [KnownApp], dryRun: Bool,
        by actor: AuditActor
    ) async throws -> ImportResult {
        let context = ImportPlan.Context(
            policy: policy, includeRefused: includeRefused, allowedMvpds: allowedMvpds, verificationKey: verificationKey,
            readers: apps.filter { domain.isUsed(by: $0) }, now: now())
        // A damaged file holds nothing to merge with: the import is planned as into an empty file and replaces it
        // whole, its bytes kept in the backup (undo puts them back).
        let (current, damaged) = try loadOrDamaged(domain)
        let plan = try ImportPlan.make(data, into: domain, current: current, context)
        if policy == .fail, let first = plan.rejected.first {
            throw HTTPError(.unprocessableEntity, code: "import_rejected",
                message: "\(plan.rejected.count) item(s) cannot be imported and the policy is “fail”, so nothing was changed.",
                detail: "\(first.requestorID) / \(first.mvpdID) \(first.item): \(first.reason ?? "")")
        }
        let changing = plan.changes.contains { $0.action == .added || $0.action == .overwritten }
        guard !dryRun, changing else { return ImportResult(plan: plan, applied: false, backupID: nil) }
        if let damaged {
            let backup = try await replaceDamaged(domain, with: plan.result, reason: "import into \(domain.id)")
            try await history.audit("import", detail: "Imported \(plan.format) into \(domain.id), replacing a file that could not be read "
                + "(\(damaged.reason)): \(plan.summary.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))", by: actor)
            return ImportResult(plan: plan, applied: true, backupID: backup.id)
        }
        let (applied, backup) = try await recordedChange(domain, reason: "import into \(domain.id)") { storage -> ImportPlan? in
            // Planned again on the value under the lock, so an app's write since the preview is kept.
            guard let again = try? ImportPlan.make(data, into: domain, current: storage, context) else { return nil }
            storage = again.result
            return again
        }
        let final = applied ?? plan
        let summary = final.summary.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        let refused = final.refusedCount == 0 ? ""
            : includeRefused ? "; \(final.refusedCount) the apps there will refuse, imported on request"
            : "; \(final.refusedCount) the apps there would refuse, left out"
        try await history.audit("import", detail: "Imported \(final.format) into \(domain.id): \(summary)\(refused)", by: actor)
        return ImportResult(plan: final, applied: true, backupID: backup.id)
    }

    // MARK: - Helpers

    /// Runs `body` holding the action lock of the device folders holding `domains` (``DeviceActionLock``).
    func serialised<T: Sendable>(_ domains: [StorageDomain], _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let roots = domains.compactMap { domain in devices.first { $0.name == domain.device }?.folder.root }
        return try await DeviceActionLock.run(roots, history: history, body)
    }

    func load(_ domain: StorageDomain) throws -> TokenStorage {
        let (storage, damaged) = try loadOrDamaged(domain)
        if let damaged {
            throw HTTPError(.conflict, code: "storage_unreadable",
                message: domain.unreadable(damaged) + ". Clear it, or import a good copy over it.")
        }
        return storage
    }

    /// The domain's storage, or (empty and) why it cannot be read when its file is damaged or of another version:
    /// a clear or an import then replaces it whole. A file that cannot be read at all is a `500`.
    func loadOrDamaged(_ domain: StorageDomain) throws -> (storage: TokenStorage, damaged: TokenStore.Unreadable?) {
        do { return (try domain.store.load(), nil) } catch let error as TokenStore.Unreadable {
            return (TokenStorage(), error)
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

    /// Changes `domain` under the storage lock and keeps a backup of it: taken before the change (so a failed write
    /// loses nothing), then saved again with the storage as read under the lock and as the change left it, which is
    /// what undo merges with (``StorageUndo``). With `backupID`, the document joins that backup (an undo of several
    /// domains is one backup).
    func recordedChange<T>(
        _ domain: StorageDomain, reason: String, backupID: String? = nil, _ change: (inout TokenStorage) -> T
    ) async throws -> (T, StorageBackup) {
        var backup = StorageBackup(at: now(), reason: reason, documents: [])
        if let backupID, let kept = try await history.backup(backupID) { backup = kept }
        let original = try domain.file.read()
        backup.documents.append(StorageBackup.Document(domain: domain.id, path: domain.file.path, contents: original))
        try await history.saveBackup(backup)
        var before = TokenStorage()
        let (result, after, _) = try write(domain) { storage -> T in
            before = storage
            return change(&storage)
        }
        // The bytes as read under the lock, unless an app wrote between the first backup and the change.
        let unchanged = original.map { (try? TokenStore.decode($0)) == before } ?? before.isEmpty
        let contents = unchanged ? original : try TokenStore.encoder.encode(before)
        backup.documents[backup.documents.count - 1] = StorageBackup.Document(
            domain: domain.id, path: domain.file.path, contents: contents, after: try TokenStore.encoder.encode(after))
        try await history.saveBackup(backup)
        return (result, backup)
    }
}
