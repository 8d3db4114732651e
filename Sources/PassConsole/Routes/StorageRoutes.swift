import AccessEnabler
import Foundation
import MicroHTTP

extension Console {
    static func addStorageRoutes(to router: inout Router, _ box: ConsoleBox) {
        router.get("/api/storage") { request in
            let console = try box.get()
            if let bundle = console.configuration.bundle { return .json(data: bundle.storageAnswer) }
            // Look-ahead: the verdicts as they will be `ahead` seconds from now (what expires mid-session), the
            // storage itself untouched and the apps still on the real clock.
            let ahead = try StorageReport.lookAhead(request.query("ahead"))
            var report = try await console.storageReport(now: console.configuration.now().addingTimeInterval(TimeInterval(ahead)))
            report.lookAheadSeconds = ahead
            return .api(report)
        }
        router.post("/api/storage/clear") { request in
            let console = try box.get()
            let scope = try request.decodeAPI(ClearScope.self)
            // Judged before the clear changes anything (the dry run's and the clear's answers agree).
            let effects = console.clearEffects(scope)
            var result = try await console.storageActions().clear(scope, apps: await console.knownApps(), by: console.actor(request))
            result.effects = effects
            return .api(result)
        }
        router.post("/api/storage/undo") { request in
            let console = try box.get()
            struct Body: Decodable { var backupID: String; var dryRun: Bool? }
            let body = try request.decodeAPI(Body.self)
            return .api(try await console.storageActions().undo(body.backupID, dryRun: body.dryRun ?? false, by: console.actor(request)))
        }
        router.get("/api/storage/backups") { _ in
            let console = try box.get()
            struct Item: Encodable { var id: String; var at: Date; var reason: String }
            return .api(["backups": try await console.history.backups().map { Item(id: $0.id, at: $0.at, reason: $0.reason) }])
        }
        router.get("/api/storage/export") { request in
            let console = try box.get()
            let domains = request.queryAll("domain").filter { !$0.isEmpty }
            let reveal = try RevealChoice.parse(request)
            let export = try await console.storageActions().export(domains, reveal: reveal,
                redaction: console.personalDataRedaction(), by: console.actor(request))
            let name = (domains.count == 1 ? domains[0] : "all").replacingOccurrences(of: ":", with: "-")
            let suffix = reveal == .everything ? "" : reveal == .personalData ? "-tokens-redacted" : "-redacted"
            let report = export.personalData ?? PersonalDataRedaction(key: console.personalDataKey).report(revealed: true)
            return .export(try APICoding.encode(export), filename: "passconsole-storage-\(name)\(suffix).json",
                contentType: "application/json", count: export.domains.count,
                unit: export.domains.count == 1 ? "storage domain" : "storage domains", report: report)
        }
        router.post("/api/storage/import") { request in
            let console = try box.get()
            guard let domain = request.query("domain"), !domain.isEmpty else {
                throw HTTPError(.badRequest, code: "missing_domain", message: "Name the storage domain to import into: ?domain=team:<teamID> or app:<bundleID>.")
            }
            let policyName = request.query("policy") ?? "overwrite"
            guard let policy = ImportPlan.Policy(rawValue: policyName) else {
                throw HTTPError(.badRequest, code: "unknown_policy", message: "policy must be overwrite, skip or fail.")
            }
            let result = try await console.storageActions().importFile(
                request.body, into: domain, policy: policy, includeRefused: request.flag("includeRefused"),
                apps: await console.knownApps(), dryRun: request.flag("dryRun"), by: console.actor(request))
            return .api(result)
        }
    }
}
