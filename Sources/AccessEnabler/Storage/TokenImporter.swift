import Foundation
import PassProtocol

/// The token importer of SDK 1.7 (seed 002, spec §8.6): carries a login over from an older storage generation so that
/// upgrading the SDK does not log the user out.
///
/// Runs during `setRequestor`, after the configuration has named the requestor's MVPDs, and only when the current
/// requestor has no valid authN token in ``TokenStorage``. The engine runs it once per storage version (the per-app
/// `previouslyImported` mark of §8.2); this type is the pure rule:
///
/// 1. Older generations are tried newest first; in each, the global token first, then the current requestor's own
///    token, then any other requestor's.
/// 2. The first token that is readable, unexpired, issued by the old `currentMvpdId` **and** by an MVPD the current
///    requestor allows is imported.
/// 3. It goes into the bucket of the requestor named *inside* the token, for its MVPD, with the old
///    `canAuthenticate` flag and the user metadata kept with it; that MVPD becomes that requestor's current one.
///
/// ```swift
/// let result = TokenImporter.importTokens(
///     into: &storage, from: [legacyV2, legacyV1], requestorID: "REF30", allowedMvpds: ["Cablevision"], now: .now)
/// if case .imported(let token) = result { log("imported \(token.mvpdID) from v\(token.storageVersion)") }
/// ```
public enum TokenImporter {
    /// Imports at most one authN token from `generations` into `storage`.
    ///
    /// - Parameters:
    ///   - storage: The current storage; changed only when a token is imported.
    ///   - generations: The older stores found on the device, in any order.
    ///   - requestorID: The requestor of the `setRequestor` call.
    ///   - allowedMvpds: The MVPDs of the requestor's configuration.
    ///   - now: The time to judge expiry against.
    /// - Returns: What was imported, or why nothing was; for events and the console.
    public static func importTokens(
        into storage: inout TokenStorage, from generations: [any StorageGeneration], requestorID: String,
        allowedMvpds: Set<String>, now: Date
    ) -> ImportResult {
        if let mvpd = validAuthnMvpd(in: storage, requestorID: requestorID, allowedMvpds: allowedMvpds, now: now) {
            return .currentTokenValid(mvpdID: mvpd)
        }
        var rejections: [ImportRejection] = []
        for generation in generations.sorted(by: { $0.storageVersion > $1.storageVersion }) {
            for candidate in candidates(in: generation, requestorID: requestorID) {
                let verdict = judge(candidate, in: generation, allowedMvpds: allowedMvpds, now: now)
                switch verdict {
                case .reject(let reason):
                    let version = generation.storageVersion
                    rejections.append(ImportRejection(storageVersion: version, owner: candidate.owner, reason: reason))
                case .accept(let token):
                    var bucket = storage.requestors[token.requestorID, default: TokenStorage.RequestorBucket()]
                    bucket.currentMvpdID = token.mvpdID
                    bucket.mvpds[token.mvpdID] = TokenStorage.MVPDBucket(
                        authnToken: candidate.serialized, canAuthenticate: generation.canAuthenticate,
                        userMeta: candidate.userMeta
                    )
                    storage.requestors[token.requestorID] = bucket
                    return .imported(
                        ImportedToken(
                            storageVersion: generation.storageVersion, owner: candidate.owner,
                            requestorID: token.requestorID, mvpdID: token.mvpdID,
                            canAuthenticate: generation.canAuthenticate, expires: token.expires
                        )
                    )
                }
            }
        }
        return rejections.isEmpty ? .nothingToImport : .noUsableToken(rejections)
    }

    /// The MVPD of a valid authN token the requestor already holds, if any.
    static func validAuthnMvpd(
        in storage: TokenStorage, requestorID: String, allowedMvpds: Set<String>, now: Date
    ) -> String? {
        let buckets = storage.requestors[requestorID]?.mvpds ?? [:]
        return buckets.keys.sorted().first { mvpd in
            guard let token = buckets[mvpd]?.authnToken else { return false }
            return TokenValidity.authN(token, allowedMvpds: allowedMvpds, now: now).0.isValid
        }
    }

    /// A generation's tokens in the order of preference: global, the current requestor's, then any other.
    static func candidates(in generation: any StorageGeneration, requestorID: String) -> [LegacyAuthnToken] {
        func rank(_ owner: LegacyAuthnToken.Owner) -> Int {
            switch owner {
            case .global: 0
            case .requestor(let id) where id == requestorID: 1
            case .requestor: 2
            }
        }
        // Stable: among equal ranks the generation's own order is kept.
        return generation.legacyAuthnTokens.enumerated()
            .sorted { (rank($0.element.owner), $0.offset) < (rank($1.element.owner), $1.offset) }
            .map(\.element)
    }

    /// Whether one candidate passes the import conditions.
    enum Verdict {
        case accept(AuthNToken)
        case reject(ImportRejection.Reason)
    }

    /// The import conditions, checked in the order that gives the most useful reason.
    static func judge(
        _ candidate: LegacyAuthnToken, in generation: any StorageGeneration, allowedMvpds: Set<String>, now: Date
    ) -> Verdict {
        let (validity, parsed) = TokenValidity.authN(candidate.serialized, allowedMvpds: nil, now: now)
        guard let token = parsed else {
            if case .malformed(let reason) = validity { return .reject(.unreadable(reason)) }
            return .reject(.unreadable(validity.explanation))
        }
        if token.isExpired(at: now) { return .reject(.expired(token.expires)) }
        guard token.mvpdID == generation.currentMvpdID else {
            return .reject(.mvpdNotCurrent(mvpdID: token.mvpdID, currentMvpdID: generation.currentMvpdID))
        }
        guard allowedMvpds.contains(token.mvpdID) else { return .reject(.mvpdNotAllowed(mvpdID: token.mvpdID)) }
        return .accept(token)
    }
}
