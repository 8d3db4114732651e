import AccessEnabler
import Foundation
import MicroHTTP
import PassProtocol

/// Plans an import into one storage domain: reads the file (our export, a storage file copied from a device, or an
/// older storage version through the SDK's token importer), judges every token, and says per item what the import
/// would do. Pure: applying means planning again on the value read under the storage lock and storing `result`,
/// so a change an app made meanwhile is never lost.
struct ImportPlan: Encodable, Sendable {
    enum Action: String, Encodable, Sendable { case added, overwritten, skipped, rejected }
    enum Policy: String, Sendable { case overwrite, skip, fail }

    struct Change: Encodable, Sendable {
        var domain: String
        var requestorID: String
        var mvpdID: String
        var item: String
        var action: Action
        var reason: String?
    }

    /// What kind of file it was, in words.
    var format: String
    var changes: [Change]
    /// The storage the import would produce from the storage it was planned against.
    var result: TokenStorage

    var summary: [String: Int] {
        var counts = Dictionary(uniqueKeysWithValues: [Action.added, .overwritten, .skipped, .rejected].map { ($0.rawValue, 0) })
        for change in changes { counts[change.action.rawValue, default: 0] += 1 }
        return counts
    }

    var rejected: [Change] { changes.filter { $0.action == .rejected } }

    /// Plans importing `data` into `domain`, whose current value is `current`.
    /// - Throws: `400 invalid_import` with a reason a person can act on, when the file is not a storage file.
    static func make(
        _ data: Data, into domain: StorageDomain, current: TokenStorage, policy: Policy,
        allowedMvpds: [String: Set<String>], verificationKey: TokenVerificationKey?, now: Date
    ) throws(HTTPError) -> ImportPlan {
        guard !data.isEmpty else { throw invalid("The file is empty.") }
        guard let parsed = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            throw invalid("The file is not JSON: choose a file exported by PassConsole or a storage.json from a device.")
        }
        guard let object = parsed as? [String: Any] else {
            throw invalid(parsed is [Any]
                ? "This is a JSON array; expected a storage export object or a device's storage.json."
                : "This is a single JSON value, not an object; expected a storage export object or a device's storage.json.")
        }
        if object["format"] as? String == StorageExport.formatName {
            let export: StorageExport
            do { export = try EntitlementEvent.Wire.decoder().decode(StorageExport.self, from: data) } catch {
                throw invalid("The PassConsole export is damaged or incomplete.", detail: "\(error)")
            }
            guard export.formatVersion <= StorageExport.currentFormatVersion else {
                throw invalid("The export has format version \(export.formatVersion); this console reads up to "
                    + "\(StorageExport.currentFormatVersion).")
            }
            guard !export.redacted else {
                throw invalid("This export was made without live tokens (redacted), so it holds nothing to import. "
                    + "Export again with “include live tokens”.")
            }
            let source = export.domains.first { $0.domain == domain.id } ?? (export.domains.count == 1 ? export.domains[0] : nil)
            guard let source else {
                let names = export.domains.map(\.domain).joined(separator: ", ")
                throw invalid("The export holds \(names.isEmpty ? "no domain" : names), not \(domain.id): pick that domain.")
            }
            return merge(source.storage, format: "PassConsole export (format \(export.formatVersion))", into: domain,
                current: current, policy: policy, allowedMvpds: allowedMvpds, key: verificationKey, now: now)
        }
        if let version = object["version"] as? Int, object["entries"] != nil {
            let legacy: LegacyTokenStorage
            do { legacy = try JSONDecoder().decode(LegacyTokenStorage.self, from: data) } catch {
                throw invalid("The file looks like storage version \(version) but cannot be read.", detail: "\(error)")
            }
            return legacyImport(legacy, into: domain, current: current, allowedMvpds: allowedMvpds, now: now)
        }
        if let version = object["version"] as? Int {
            guard version == TokenStorage.currentVersion else {
                throw invalid("The storage file has version \(version); this console reads version "
                    + "\(TokenStorage.currentVersion), and versions 1–2 as {\"version\", \"entries\"} files.")
            }
            let storage: TokenStorage
            do { storage = try TokenStore.decode(data) } catch {
                throw invalid("The storage file is damaged or incomplete.", detail: "\(error)")
            }
            return merge(storage, format: "storage file (version \(version))", into: domain, current: current,
                policy: policy, allowedMvpds: allowedMvpds, key: verificationKey, now: now)
        }
        throw invalid("This JSON is not a storage file: it has neither a \"format\": \"\(StorageExport.formatName)\" "
            + "header nor a storage \"version\".")
    }

    static func invalid(_ message: String, detail: String? = nil) -> HTTPError {
        HTTPError(.badRequest, code: "invalid_import", message: message + " Nothing was changed.", detail: detail)
    }

    // MARK: - Current format

    static func merge(
        _ incoming: TokenStorage, format: String, into domain: StorageDomain, current: TokenStorage, policy: Policy,
        allowedMvpds: [String: Set<String>], key: TokenVerificationKey?, now: Date
    ) -> ImportPlan {
        var result = current
        var changes: [Change] = []
        func record(_ requestor: String, _ mvpd: String, _ item: String, _ action: Action, _ reason: String? = nil) {
            changes.append(Change(domain: domain.id, requestorID: requestor, mvpdID: mvpd, item: item, action: action, reason: reason))
        }
        for (requestor, bucket) in incoming.requestors.sorted(by: { $0.key < $1.key }) {
            for (mvpd, tokens) in bucket.mvpds.sorted(by: { $0.key < $1.key }) {
                let existing = current.bucket(requestor: requestor, mvpd: mvpd)
                if let authn = tokens.authnToken {
                    if let reason = problem(authn, AuthNToken.self, mvpd: mvpd, requestor: requestor, allowed: allowedMvpds, key: key, now: now) {
                        record(requestor, mvpd, "authentication token", .rejected, reason)
                    } else if existing?.authnToken == authn {
                        record(requestor, mvpd, "authentication token", .skipped, "already stored")
                    } else if existing?.authnToken != nil && policy == .skip {
                        record(requestor, mvpd, "authentication token", .skipped, "a token is stored and the policy is skip")
                    } else {
                        record(requestor, mvpd, "authentication token", existing?.authnToken == nil ? .added : .overwritten)
                        var merged = result.bucket(requestor: requestor, mvpd: mvpd) ?? TokenStorage.MVPDBucket()
                        merged.authnToken = authn
                        merged.canAuthenticate = tokens.canAuthenticate || merged.canAuthenticate
                        merged.userMeta = tokens.userMeta ?? merged.userMeta
                        result.requestors[requestor, default: .init()].mvpds[mvpd] = merged
                    }
                }
                for (resource, authz) in tokens.authzTokens.sorted(by: { $0.key < $1.key }) {
                    let item = "authorization token for \(resource)"
                    if let reason = problem(authz, AuthZToken.self, mvpd: mvpd, requestor: requestor, allowed: allowedMvpds, key: key, now: now) {
                        record(requestor, mvpd, item, .rejected, reason)
                    } else if existing?.authzTokens[resource] == authz {
                        record(requestor, mvpd, item, .skipped, "already stored")
                    } else if existing?.authzTokens[resource] != nil && policy == .skip {
                        record(requestor, mvpd, item, .skipped, "a token is stored and the policy is skip")
                    } else {
                        record(requestor, mvpd, item, existing?.authzTokens[resource] == nil ? .added : .overwritten)
                        result.storeAuthorization(requestor: requestor, mvpd: mvpd, resource: resource, authzToken: authz)
                    }
                }
            }
            if let selected = bucket.currentMvpdID, result.requestors[requestor]?.mvpds[selected] != nil {
                let before = current.currentMvpd(requestor: requestor)
                if before == selected {
                    record(requestor, selected, "selected MVPD", .skipped, "already selected")
                } else if before != nil && policy == .skip {
                    record(requestor, selected, "selected MVPD", .skipped, "\(before!) is selected and the policy is skip")
                } else {
                    record(requestor, selected, "selected MVPD", before == nil ? .added : .overwritten)
                    result.requestors[requestor]?.currentMvpdID = selected
                }
            }
        }
        return ImportPlan(format: format, changes: changes, result: result)
    }

    /// Why a token may not be imported, or `nil` when it may.
    static func problem<Body: TokenBody & ValidityFields>(
        _ serialized: String, _ type: Body.Type, mvpd: String, requestor: String, allowed: [String: Set<String>],
        key: TokenVerificationKey?, now: Date
    ) -> String? {
        let token: SignedToken<Body>
        do { token = try SignedToken<Body>.parse(serialized) } catch {
            return "unreadable token: \(error.reason)"
        }
        if let key, !token.verify(with: key) { return "the signature does not match the backend's key (tampered or from another backend)" }
        let (expires, issuer) = token.body.validityFields
        if expires <= now { return "expired at \(EntitlementEvent.Wire.format(expires))" }
        if issuer != mvpd { return "issued by \(issuer) but filed under \(mvpd)" }
        if let list = allowed[requestor], !list.contains(issuer) { return "\(requestor) does not integrate \(issuer)" }
        return nil
    }

    // MARK: - Older versions

    static func legacyImport(
        _ legacy: LegacyTokenStorage, into domain: StorageDomain, current: TokenStorage,
        allowedMvpds: [String: Set<String>], now: Date
    ) -> ImportPlan {
        var result = current
        var changes: [Change] = []
        var requestors = Set(legacy.requestorsWithTokens)
        for candidate in legacy.legacyAuthnTokens {
            if let token = try? SignedToken<AuthNToken>.parse(candidate.serialized) { requestors.insert(token.body.requestorID) }
        }
        for requestor in requestors.sorted() {
            let allowed = allowedMvpds[requestor] ?? Set(legacy.currentMvpdID.map { [$0] } ?? [])
            let outcome = TokenImporter.importTokens(
                into: &result, from: [legacy], requestorID: requestor, allowedMvpds: allowed, now: now)
            let mvpd = outcome.importedToken?.mvpdID ?? legacy.currentMvpdID ?? "—"
            let action: Action = switch outcome {
            case .imported: .added
            case .currentTokenValid, .nothingToImport: .skipped
            case .noUsableToken: .rejected
            }
            changes.append(Change(
                domain: domain.id, requestorID: requestor, mvpdID: mvpd, item: "authentication token",
                action: action, reason: action == .added ? nil : outcome.explanation))
        }
        return ImportPlan(format: "older storage version \(legacy.storageVersion) (through the SDK's token importer)",
            changes: changes, result: result)
    }

    enum CodingKeys: String, CodingKey { case format, changes, summary }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format, forKey: .format)
        try container.encode(changes, forKey: .changes)
        try container.encode(summary, forKey: .summary)
    }
}

/// The fields every token has that the import rules judge.
protocol ValidityFields {
    var validityFields: (expires: Date, issuer: String) { get }
}

extension AuthNToken: ValidityFields {
    var validityFields: (expires: Date, issuer: String) { (expires, mvpdID) }
}

extension AuthZToken: ValidityFields {
    var validityFields: (expires: Date, issuer: String) { (expires, mvpdID) }
}
