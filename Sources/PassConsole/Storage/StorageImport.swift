import DecodingWords
import AccessEnabler
import Foundation
import MicroHTTP
import PassProtocol

/// Plans an import into one storage domain: reads the file (our export, a storage file copied from a device, or an
/// older storage version through the SDK's token importer), judges every token, and says per item what the import
/// would do. A token the target's apps will refuse (``ImportRefusal``: device ID, issuer, TTL, storage version) is
/// flagged and left out, unless the operator asks for it. Pure: applying means planning again on the value read
/// under the storage lock and storing `result`, so a change an app made meanwhile is never lost.
struct ImportPlan: Encodable, Sendable {
    enum Action: String, Encodable, Sendable { case added, overwritten, skipped, rejected, refused }
    enum Policy: String, Sendable { case overwrite, skip, fail }

    /// What a plan is made against.
    struct Context: Sendable {
        var policy: Policy
        /// Import tokens the target's apps will refuse too (flagged all the same); by default they are left out.
        var includeRefused = false
        var allowedMvpds: [String: Set<String>]
        var verificationKey: TokenVerificationKey?
        /// The apps that read the target domain.
        var readers: [KnownApp]
        var now: Date

        func rules(storageVersion: Int) -> ImportRefusal.Rules {
            ImportRefusal.Rules(readers: readers, allowedMvpds: allowedMvpds, storageVersion: storageVersion, now: now)
        }
    }

    struct Change: Encodable, Sendable {
        var domain: String
        var requestorID: String
        var mvpdID: String
        var item: String
        var action: Action
        var reason: String?
        /// The rule the target's apps will refuse the token by (`device`, `issuer`, `ttl`, `version`), if any.
        var refusedBy: String?
        /// `will be refused: …`, also when it was imported on request.
        var refusal: String?
    }

    /// What kind of file it was, in words.
    var format: String
    var changes: [Change]
    /// The storage the import would produce from the storage it was planned against.
    var result: TokenStorage

    var summary: [String: Int] {
        var counts = Dictionary(uniqueKeysWithValues: [Action.added, .overwritten, .skipped, .rejected, .refused].map { ($0.rawValue, 0) })
        for change in changes { counts[change.action.rawValue, default: 0] += 1 }
        return counts
    }

    var rejected: [Change] { changes.filter { $0.action == .rejected } }

    /// How many tokens the target's apps will refuse (left out, or imported on request).
    var refusedCount: Int { changes.filter { $0.refusal != nil }.count }

    /// Whether tokens the target's apps will refuse were imported on request.
    var includesRefused = false
    /// The apps whose rules the tokens were judged by (bundle IDs); empty when no app is known to read the target,
    /// so the device binding could not be checked.
    var judgedFor: [String] = []

    /// Plans importing `data` into `domain`, whose current value is `current`.
    /// - Throws: `400 invalid_import` with a reason a person can act on, when the file is not a storage file.
    static func make(_ data: Data, into domain: StorageDomain, current: TokenStorage, _ context: Context) throws(HTTPError)
        -> ImportPlan
    {
        var plan = try planned(data, into: domain, current: current, context)
        plan.judgedFor = context.readers.map(\.identity.bundleID).sorted()
        return plan
    }

    private static func planned(_ data: Data, into domain: StorageDomain, current: TokenStorage, _ context: Context)
        throws(HTTPError) -> ImportPlan
    {
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
                throw invalid("The PassConsole export is damaged or incomplete.", detail: DecodingError.words(error))
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
                current: current, context)
        }
        if let version = object["version"] as? Int, object["entries"] != nil {
            let legacy: LegacyTokenStorage
            do { legacy = try JSONDecoder().decode(LegacyTokenStorage.self, from: data) } catch {
                throw invalid("The file looks like storage version \(version) but cannot be read.", detail: DecodingError.words(error))
            }
            return legacyImport(legacy, into: domain, current: current, context)
        }
        if let version = object["version"] as? Int {
            guard version == TokenStorage.currentVersion else {
                throw invalid("The storage file has version \(version); this console reads version "
                    + "\(TokenStorage.currentVersion), and versions 1–2 as {\"version\", \"entries\"} files.")
            }
            let storage: TokenStorage
            do { storage = try TokenStore.decode(data) } catch {
                throw invalid("The storage file is damaged or incomplete.", detail: DecodingError.words(error))
            }
            return merge(storage, format: "storage file (version \(version))", into: domain, current: current, context)
        }
        throw invalid("This JSON is not a storage file: it has neither a \"format\": \"\(StorageExport.formatName)\" "
            + "header nor a storage \"version\".")
    }

    static func invalid(_ message: String, detail: String? = nil) -> HTTPError {
        HTTPError(.badRequest, code: "invalid_import", message: message + " Nothing was changed.", detail: detail)
    }

    // MARK: - Current format

    static func merge(
        _ incoming: TokenStorage, format: String, into domain: StorageDomain, current: TokenStorage, _ context: Context
    ) -> ImportPlan {
        let policy = context.policy, key = context.verificationKey
        let rules = context.rules(storageVersion: incoming.version)
        var result = current
        var changes: [Change] = []
        func record(_ requestor: String, _ mvpd: String, _ item: String, _ action: Action, _ reason: String? = nil,
            refusal: ImportRefusal? = nil)
        {
            changes.append(Change(domain: domain.id, requestorID: requestor, mvpdID: mvpd, item: item, action: action, reason: reason,
                refusedBy: refusal?.rule, refusal: refusal?.text))
        }
        /// Left out by default: the operator sees why and may import it anyway.
        func leftOut(_ refusal: ImportRefusal?) -> Bool { refusal != nil && !context.includeRefused }
        let notImported = "not imported (import refused tokens to bring it anyway)"
        for (requestor, bucket) in incoming.requestors.sorted(by: { $0.key < $1.key }) {
            for (mvpd, tokens) in bucket.mvpds.sorted(by: { $0.key < $1.key }) {
                let existing = current.bucket(requestor: requestor, mvpd: mvpd)
                if let authn = tokens.authnToken {
                    let refusal = rules.authN(authn, requestor: requestor)
                    if let reason = problem(authn, AuthNToken.self, mvpd: mvpd, key: key) {
                        record(requestor, mvpd, "authentication token", .rejected, reason)
                    } else if leftOut(refusal) {
                        record(requestor, mvpd, "authentication token", .refused, notImported, refusal: refusal)
                    } else if existing?.authnToken == authn {
                        record(requestor, mvpd, "authentication token", .skipped, "already stored")
                    } else if existing?.authnToken != nil && policy == .skip {
                        record(requestor, mvpd, "authentication token", .skipped, "a token is stored and the policy is skip")
                    } else {
                        record(requestor, mvpd, "authentication token", existing?.authnToken == nil ? .added : .overwritten,
                            refusal: refusal)
                        var merged = result.bucket(requestor: requestor, mvpd: mvpd) ?? TokenStorage.MVPDBucket()
                        merged.authnToken = authn
                        merged.canAuthenticate = tokens.canAuthenticate || merged.canAuthenticate
                        // The user metadata comes with its token, and is an item of its own (an undo lists it as one).
                        if let meta = tokens.userMeta, meta != merged.userMeta {
                            record(requestor, mvpd, "user metadata", merged.userMeta == nil ? .added : .overwritten)
                        }
                        merged.userMeta = tokens.userMeta ?? merged.userMeta
                        result.requestors[requestor, default: .init()].mvpds[mvpd] = merged
                    }
                }
                for (resource, authz) in tokens.authzTokens.sorted(by: { $0.key < $1.key }) {
                    let item = "authorization token for \(resource)"
                    let refusal = rules.authZ(authz, requestor: requestor)
                    if let reason = problem(authz, AuthZToken.self, mvpd: mvpd, key: key) {
                        record(requestor, mvpd, item, .rejected, reason)
                    } else if leftOut(refusal) {
                        record(requestor, mvpd, item, .refused, notImported, refusal: refusal)
                    } else if existing?.authzTokens[resource] == authz {
                        record(requestor, mvpd, item, .skipped, "already stored")
                    } else if existing?.authzTokens[resource] != nil && policy == .skip {
                        record(requestor, mvpd, item, .skipped, "a token is stored and the policy is skip")
                    } else {
                        record(requestor, mvpd, item, existing?.authzTokens[resource] == nil ? .added : .overwritten, refusal: refusal)
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
        return ImportPlan(format: format, changes: changes, result: result, includesRefused: context.includeRefused)
    }

    /// Why a token cannot be imported at all (unreadable, not signed by this backend, filed under another MVPD), or
    /// `nil` when it can. Whether the target's apps will use it is ``ImportRefusal``'s question.
    static func problem<Body: TokenBody & ValidityFields>(
        _ serialized: String, _ type: Body.Type, mvpd: String, key: TokenVerificationKey?
    ) -> String? {
        let token: SignedToken<Body>
        do { token = try SignedToken<Body>.parse(serialized) } catch {
            return "unreadable token: \(error.reason)"
        }
        if let key, !token.verify(with: key) { return "the signature does not match the backend's key (tampered or from another backend)" }
        let issuer = token.body.validityFields.issuer
        if issuer != mvpd { return "issued by \(issuer) but filed under \(mvpd)" }
        return nil
    }

    // MARK: - Older versions

    static func legacyImport(
        _ legacy: LegacyTokenStorage, into domain: StorageDomain, current: TokenStorage, _ context: Context
    ) -> ImportPlan {
        // The SDK's importer judges TTL and issuer itself and brings the token to the current version; what is
        // left to flag is the device binding, judged on the token as it lands.
        let rules = context.rules(storageVersion: TokenStorage.currentVersion)
        var result = current
        var changes: [Change] = []
        var requestors = Set(legacy.requestorsWithTokens)
        for candidate in legacy.legacyAuthnTokens {
            if let token = try? SignedToken<AuthNToken>.parse(candidate.serialized) { requestors.insert(token.body.requestorID) }
        }
        for requestor in requestors.sorted() {
            let allowed = context.allowedMvpds[requestor] ?? Set(legacy.currentMvpdID.map { [$0] } ?? [])
            let before = result
            let outcome = TokenImporter.importTokens(
                into: &result, from: [legacy], requestorID: requestor, allowedMvpds: allowed, now: context.now)
            let mvpd = outcome.importedToken?.mvpdID ?? legacy.currentMvpdID ?? "—"
            var action: Action = switch outcome {
            case .imported: .added
            case .currentTokenValid, .nothingToImport: .skipped
            case .noUsableToken: .rejected
            }
            let refusal = outcome.importedToken.flatMap { _ in result.bucket(requestor: requestor, mvpd: mvpd)?.authnToken }
                .flatMap { rules.authN($0, requestor: requestor) }
            if refusal != nil, !context.includeRefused {
                result = before
                action = .refused
            }
            changes.append(Change(
                domain: domain.id, requestorID: requestor, mvpdID: mvpd, item: "authentication token",
                action: action, reason: action == .added ? nil : action == .refused ? "not imported (import refused tokens to bring it anyway)" : outcome.explanation,
                refusedBy: refusal?.rule, refusal: refusal?.text))
        }
        return ImportPlan(format: "older storage version \(legacy.storageVersion) (through the SDK's token importer)",
            changes: changes, result: result, includesRefused: context.includeRefused)
    }

    enum CodingKeys: String, CodingKey { case format, changes, summary, refused, includesRefused, judgedFor }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format, forKey: .format)
        try container.encode(changes, forKey: .changes)
        try container.encode(summary, forKey: .summary)
        try container.encode(refusedCount, forKey: .refused)
        try container.encode(includesRefused, forKey: .includesRefused)
        try container.encode(judgedFor, forKey: .judgedFor)
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
