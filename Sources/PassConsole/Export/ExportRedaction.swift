import AccessEnabler
import Foundation
import MicroHTTP
import PassHistory

/// What an operator chose to keep in an export (`reveal=`): by default neither live tokens nor personal data.
enum RevealChoice: Equatable, Sendable {
    /// Tokens as previews, personal data replaced (``PersonalDataRedaction``).
    case nothing
    /// Personal data kept; tokens still previews.
    case personalData
    /// Live tokens, and so personal data too (an authentication token carries the user's GUID). Storage exports only;
    /// elsewhere tokens were shortened before they were stored, so it means ``personalData``.
    case everything

    /// From `reveal`: absent or `false` → nothing; `personal` → personal data; `true`, `1`, `yes`, `tokens` → everything.
    static func parse(_ request: Request) throws(HTTPError) -> RevealChoice {
        guard let value = request.query("reveal")?.lowercased(), !value.isEmpty else { return .nothing }
        switch value {
        case "false", "0", "no", "off", "none": return .nothing
        case "personal": return .personalData
        case "true", "1", "yes", "on", "tokens": return .everything
        default:
            throw HTTPError(.badRequest, code: "invalid_parameter",
                message: "reveal must be personal (keep personal data), true (live tokens and personal data) or false.",
                detail: value)
        }
    }

    var revealsPersonalData: Bool { self != .nothing }
}

extension Console {
    /// A redaction keyed with this console's key that already knows the personal values of the device's storage
    /// (tokens' GUIDs, user metadata), so an export of a few events still hides a user ID they mention.
    func personalDataRedaction() -> PersonalDataRedaction {
        var redaction = PersonalDataRedaction(key: personalDataKey)
        for domain in (try? StorageDomain.all(in: configuration.devices)) ?? [] {
            if let storage = try? domain.store.load() { redaction.learn(from: storage) }
        }
        return redaction
    }

    /// `events` as an export may hold them: with personal data replaced unless `reveal` keeps it. The report says what
    /// was replaced.
    func exportable(_ events: [StoredEvent], reveal: RevealChoice) -> ([StoredEvent], PersonalDataRedaction.Report) {
        var redaction = personalDataRedaction()
        guard !reveal.revealsPersonalData else { return (events, redaction.report(revealed: true)) }
        redaction.learn(from: events.map(\.event))
        let redacted = events.map { StoredEvent(id: $0.id, summary: redaction.redact($0.summary), event: redaction.redact($0.event)) }
        return (redacted, redaction.report(revealed: false))
    }

    /// Records an export that keeps personal data in the audit log (the operator chose it on purpose).
    func auditReveal(_ what: String, report: PersonalDataRedaction.Report, by actor: AuditActor) async throws {
        guard report.revealed else { return }
        try await history.audit("reveal", detail: "Exported \(what) WITH personal data (user IDs, household IDs, usernames, "
            + "email addresses, ZIP codes kept)", by: actor)
    }
}

extension PersonalDataRedaction {
    /// A token report's user ID replaced (the authentication token's GUID).
    mutating func redact(_ domains: [StorageReport.Domain]) -> [StorageReport.Domain] {
        domains.map { domain in
            var copy = domain
            for (p, programmer) in domain.programmers.enumerated() {
                for (m, cell) in programmer.mvpds.enumerated() {
                    if let userID = cell.authn?.userID {
                        learn(userID, as: .userID)
                        copy.programmers[p].mvpds[m].authn?.userID = redact(userID)
                    }
                }
            }
            return copy
        }
    }

    /// A storage with its user metadata redacted (tokens are left as they are: previews, or live when revealed).
    mutating func redact(_ storage: TokenStorage) -> TokenStorage {
        learn(from: storage)
        var copy = storage
        for (requestor, bucket) in storage.requestors {
            for (mvpd, tokens) in bucket.mvpds where tokens.userMeta != nil {
                copy.requestors[requestor]?.mvpds[mvpd]?.userMeta = tokens.userMeta.map { redact($0) }
            }
        }
        return copy
    }
}

extension Response {
    /// A file download that says, in headers the page reads for its confirmation, how many items it holds and what
    /// personal data was replaced: `X-PassConsole-Export-Count: 1234`, `X-PassConsole-Export-Unit: events`,
    /// `X-PassConsole-Redacted: user IDs, ZIP codes` (or `nothing`, or `nothing: revealed on purpose`).
    static func export(_ data: Data, filename: String, contentType: String, count: Int, unit: String,
        report: PersonalDataRedaction.Report) -> Response
    {
        Response(
            headers: [("Content-Type", contentType), ("Content-Disposition", Response.attachment(filename)),
                      ("Cache-Control", "no-store"), ("X-PassConsole-Export-Count", String(count)),
                      ("X-PassConsole-Export-Unit", unit),
                      ("X-PassConsole-Redacted", report.revealed ? "nothing: revealed on purpose" : report.removedText)],
            body: .data(data))
    }
}
