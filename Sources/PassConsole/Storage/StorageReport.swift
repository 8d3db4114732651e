import AccessEnabler
import Foundation
import MicroHTTP
import PassStorage

/// `GET /api/storage`: every token storage file of the device as a Programmer × MVPD grid, each token judged.
struct StorageReport: Encodable, Sendable {
    struct Domain: Encodable, Sendable {
        var id: String
        var label: String
        var kind: StorageDomain.Kind
        var owner: String
        var device: String
        var file: String
        var version: Int?
        /// Bundle IDs of the known apps that read and write this file.
        var apps: [String]
        /// Why the file could not be read, if so.
        var error: String?
        var programmers: [Programmer]
    }

    struct Programmer: Encodable, Sendable {
        var requestorID: String
        var selectedMvpd: String?
        var mvpds: [Cell]
    }

    struct Cell: Encodable, Sendable {
        var mvpdID: String
        var canAuthenticate: Bool
        var authn: TokenReport?
        var authz: [TokenReport]
        var preauthorized: [String]?
    }

    var deviceFolder: String
    /// The time the tokens were judged at: the console's clock plus ``lookAheadSeconds``.
    var now: Date
    /// How far past the console's clock the verdicts look (0: as they are now).
    var lookAheadSeconds = 0
    var devices: [String: String] = [:]
    var domains: [Domain]

    /// The longest look-ahead `GET /api/storage?ahead=` takes: a year and a day covers any token TTL.
    static let maxLookAhead = 366 * 24 * 3600

    /// The `ahead` query value as seconds (absent: 0).
    /// - Throws: a 400 in words when it is not a whole number of seconds from 0 to ``maxLookAhead``.
    static func lookAhead(_ text: String?) throws -> Int {
        guard let text, !text.isEmpty else { return 0 }
        guard let seconds = Int(text), (0...maxLookAhead).contains(seconds) else {
            throw HTTPError(.badRequest, code: "bad_look_ahead",
                message: "ahead must be a whole number of seconds from 0 to \(maxLookAhead) (366 days), not \(text).")
        }
        return seconds
    }

    /// Reads every storage file of `device` (and the empty files the known apps would use) and judges each token.
    static func build(
        devices: [ConsoleDevice], apps: [KnownApp], allowedMvpds: [String: Set<String>], perRequestorMvpds: Set<String>? = nil,
        now: Date
    ) throws -> StorageReport {
        var domains = try StorageDomain.all(in: devices)
        for app in apps {
            guard let device = devices.first(where: { $0.name == app.device }) else { continue }
            if let domain = try? StorageDomain.of(app.identity, on: device), !domains.contains(domain) {
                domains.append(domain)
            }
        }
        domains.sort { ($0.device, $0.kind.rawValue, $0.owner) < ($1.device, $1.kind.rawValue, $1.owner) }
        return StorageReport(
            deviceFolder: devices[0].folder.root.path(percentEncoded: false), now: now,
            devices: Dictionary(uniqueKeysWithValues: devices.map { ($0.name, $0.folder.root.path(percentEncoded: false)) }),
            domains: domains.map { domain($0, apps: apps, allowedMvpds: allowedMvpds, perRequestorMvpds: perRequestorMvpds, now: now) })
    }

    static func domain(
        _ domain: StorageDomain, apps: [KnownApp], allowedMvpds: [String: Set<String>], perRequestorMvpds: Set<String>? = nil, now: Date
    ) -> Domain {
        let readers = apps.filter { domain.isUsed(by: $0) }
        var result = Domain(
            id: domain.id, label: domain.label, kind: domain.kind, owner: domain.owner, device: domain.device, file: domain.file.path,
            version: nil, apps: readers.map(\.identity.bundleID).sorted(), error: nil, programmers: [])
        let storage: TokenStorage
        do {
            storage = try domain.store.load()
        } catch {
            result.error = domain.unreadable(error) + ". The apps treat it as empty; clear it, or import a good copy over it."
            return result
        }
        result.version = storage.version
        let judge = TokenJudge(
            allowedMvpds: allowedMvpds, perRequestorMvpds: perRequestorMvpds, readers: readers, storageVersion: storage.version, now: now)
        result.programmers = storage.requestors.sorted { $0.key < $1.key }.map { requestor, bucket in
            Programmer(
                requestorID: requestor, selectedMvpd: bucket.currentMvpdID,
                mvpds: bucket.mvpds.sorted { $0.key < $1.key }.map { mvpd, tokens in
                    Cell(
                        mvpdID: mvpd, canAuthenticate: tokens.canAuthenticate,
                        authn: tokens.authnToken.map { judge.authN($0, requestor: requestor, mvpd: mvpd) },
                        authz: tokens.authzTokens.sorted { $0.key < $1.key }.map {
                            judge.authZ($0.value, requestor: requestor, mvpd: mvpd, resource: $0.key)
                        },
                        preauthorized: tokens.preauthorizedResources)
                })
        }
        return result
    }
}
