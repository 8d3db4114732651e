import AccessEnabler
import Foundation
import PassHistory

/// One file a support person attaches to a ticket: a session's health card (as text too), its callback contract,
/// its flow, the storage its app reads (every token redacted, with a fingerprint so equal tokens compare equal across
/// bundles), its HTTP exchanges as HAR 1.2 and all its events in the wire form, under a manifest saying what is
/// inside and what was redacted.
struct SupportBundle: Encodable {
    static let formatName = "passconsole-support-bundle"
    static let formatVersion = 1

    struct Manifest: Encodable {
        var format = SupportBundle.formatName
        var version = SupportBundle.formatVersion
        var createdAt: Date
        var consoleVersion: String
        var session: HistorySession
        var eventCount: Int
        var exchangeCount: Int
        var redaction: String
        /// What was done to personal data (user IDs, household IDs, usernames, emails, ZIP codes), and the rule.
        var personalData: PersonalDataRedaction.Report
        var contents: [String: String]
    }

    var manifest: Manifest
    /// The health card as the page's "Copy for a ticket" text.
    var summary: String
    var health: HealthCard
    var contract: [CallbackContract.Rule]
    var flow: FlowProgress
    var storage: [StorageReport.Domain]
    var har: HARDocument
    var events: [EntitlementEvent]

    /// The bundle of `session`; unless `reveal` keeps it, personal data is replaced by `redaction` everywhere in it.
    init(session: HistorySession, events recorded: [EntitlementEvent], health: HealthCard, storage: StorageReport?, now: Date,
        reveal: RevealChoice, redaction: inout PersonalDataRedaction)
    {
        let hidesPersonalData = !reveal.revealsPersonalData
        if hidesPersonalData { redaction.learn(from: recorded) }
        let events = hidesPersonalData ? recorded.map { redaction.redact($0) } : recorded
        let domains = HealthCard.domains(of: session, in: storage)
        self.storage = hidesPersonalData ? redaction.redact(domains) : domains
        let text = Self.text(session: session, health: health)
        summary = hidesPersonalData ? redaction.redact(text) : text
        let exchanges = events.filter { if case .httpExchange = $0.kind { true } else { false } }
        manifest = Manifest(
            createdAt: now, consoleVersion: AccessEnabler.version, session: session, eventCount: events.count,
            exchangeCount: exchanges.count,
            redaction: "Tokens appear as a short preview and a SHA-256 fingerprint (equal tokens, equal fingerprints); the SDK "
                + "already shortened tokens and secrets in events and exchanges before they were recorded. Nothing here "
                + "signs anyone in.",
            personalData: redaction.report(revealed: !hidesPersonalData),
            contents: [
                "summary": "the health card in words, as pasted into tickets",
                "health": "the same card as data: headline, facts, named diagnoses",
                "contract": "the SDK's callback contract, rule by rule, as this session kept or broke it",
                "flow": "the flow's state machine as the session left it",
                "storage": "the token storage the app reads, each token judged rule by rule (redacted)",
                "har": "the session's HTTP exchanges, HAR 1.2 (open in a browser's network panel)",
                "events": "every event of the session in order (API calls, states, exchanges, storage, callbacks, tracking)",
            ])
        self.health = health
        contract = CallbackContract.check(events)
        flow = FlowProgress.replay(events)
        har = HARDocument(exchanges, personalData: manifest.personalData)
        self.events = events
    }

    /// The card as plain text, one fact per line.
    static func text(session: HistorySession, health: HealthCard) -> String {
        ([
            "Session \(session.id.uuidString) · \(session.bundleID) (team \(session.teamID), \(session.platform.rawValue)) · "
                + "Programmer \(session.requestorID ?? "not set") · device \(session.deviceID)",
            health.headline,
        ] + health.lines + health.verdicts.map { "[\($0.severity)] \($0.title): \($0.text)" }).joined(separator: "\n")
    }
}
