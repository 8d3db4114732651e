import AccessEnabler
import Foundation
import MicroHTTP
import PassHistory
import PassProtocol

extension Console {
    struct SessionDiffAnswer: Encodable {
        var a: HistorySession
        var b: HistorySession
        var diff: SessionDiff
    }

    struct SessionDetail: Encodable {
        var session: HistorySession
        var health: HealthCard
        /// The delegate contract, rule by rule (``CallbackContract``).
        var contract: [CallbackContract.Rule]
        var flow: FlowProgress
    }

    static func addSessionRoutes(to router: inout Router, _ box: ConsoleBox) {
        router.get("/api/sessions") { request in
            let console = try box.get()
            let text = request.query("q") ?? ""
            guard text.utf8.count <= Console.sessionSearchLength else {
                throw HTTPError(.badRequest, code: "invalid_parameter", message: "The search is too long: at most \(Console.sessionSearchLength) bytes.")
            }
            return .api(["sessions": try await console.sessionRows(matching: text, now: console.configuration.now())])
        }
        router.get("/api/sessions/{id}") { request in
            let console = try box.get()
            let (session, events) = try await console.sessionEvents(request.pathParameters["id"])
            if let bundle = console.configuration.bundle, bundle.sessionID == session.id {
                return try bundle.sessionAnswer(session: session, flow: FlowProgress.replay(events))
            }
            let now = console.configuration.now()
            return .api(SessionDetail(
                session: session, health: await console.healthCard(session, events, storage: try? await console.storageReport(now: now), now: now),
                contract: CallbackContract.check(events), flow: FlowProgress.replay(events)))
        }
        router.get("/api/sessions/{id}/diff") { request in
            let console = try box.get()
            let (a, eventsA) = try await console.sessionEvents(request.pathParameters["id"])
            guard let other = request.query("with"), !other.isEmpty else {
                throw HTTPError(.badRequest, code: "missing_parameter", message: "Name the session to compare with: ?with=<session ID>.")
            }
            let (b, eventsB) = try await console.sessionEvents(other)
            return .api(SessionDiffAnswer(a: a, b: b, diff: SessionDiff(eventsA, eventsB)))
        }
        router.get("/api/sessions/{id}/bundle") { request in
            let console = try box.get()
            let (session, events) = try await console.sessionEvents(request.pathParameters["id"])
            if let opened = console.configuration.bundle, opened.sessionID == session.id {
                return .download(opened.raw, filename: (opened.file as NSString).lastPathComponent, contentType: "application/json")
            }
            let now = console.configuration.now()
            let storage = try? await console.storageReport(now: now)
            let bundle = SupportBundle(session: session, events: events,
                health: await console.healthCard(session, events, storage: storage, now: now), storage: storage, now: now)
            try await console.history.audit("export", detail: "Support bundle of session \(session.id.uuidString) (\(session.bundleID), "
                + "\(events.count) events)", remote: request.remoteAddress)
            let stamp = EntitlementEvent.Wire.format(now).replacingOccurrences(of: ":", with: "-")
            return .download(try APICoding.encode(bundle),
                filename: "passconsole-support-\(session.id.uuidString.prefix(8))-\(stamp).json", contentType: "application/json")
        }
    }
}

extension Console {
    /// The session named by `id` and all its events, or a 404 in words.
    func sessionEvents(_ id: String?) async throws -> (HistorySession, [EntitlementEvent]) {
        guard let uuid = UUID(uuidString: id ?? ""), let session = try await history.session(uuid) else {
            throw HTTPError(.notFound, code: "unknown_session", message: "No session has the ID '\(id ?? "")'.")
        }
        return (session, try await history.page(matching: HistoryFilter(sessionID: uuid), limit: 20_000).events.map(\.event))
    }

    /// The storage of every device, each token judged at `now`.
    func storageReport(now: Date) async throws -> StorageReport {
        await waitForAppStorageWrites()
        return try StorageReport.build(devices: configuration.devices, apps: await knownApps(), allowedMvpds: catalog.allowedMvpds, now: now)
    }

    /// The session's health card over `storage`, with the backend's record of each registration code its TV showed.
    func healthCard(_ session: HistorySession, _ events: [EntitlementEvent], storage: StorageReport?, now: Date) async -> HealthCard {
        var regcodes: [String: RegcodeLife] = [:]
        if let admin = BackendAdmin(baseURL: configuration.backendURL) {
            for code in SecondScreenCode.codes(in: events) { regcodes[code] = await admin.regcodeLife(code) }
        }
        return HealthCard.make(session: session, events: events, storage: storage, now: now, regcodes: regcodes)
    }
}

extension Console {
    /// What `POST /api/sessions/{id}/replay` accepts: credentials for the MVPD login page, both or neither.
    struct ReplayRequest: Decodable {
        var username: String?
        var password: String?
    }

    static func addReplayRoute(to router: inout Router, _ box: ConsoleBox) {
        router.post("/api/sessions/{id}/replay") { request in
            let console = try box.get()
            let (session, events) = try await console.sessionEvents(request.pathParameters["id"])
            guard let backend = console.configuration.backendURL, let serviceProvider = URL(string: backend + "/adobe-services") else {
                throw HTTPError(.conflict, code: "no_backend",
                    message: "This console runs without its local backend, so there is nothing to replay against.",
                    detail: "Start it with passconsole serve (make run), which runs the backend too.")
            }
            let plan = try ReplayPlan(events: events)
            let asked = try request.decodeAPI(ReplayRequest.self)
            let credentials = try console.replayCredentials(asked, plan: plan)
            try await console.history.audit("replay", detail: "Replay of session \(session.id.uuidString) (\(session.bundleID), "
                + "\(plan.steps.count) calls)" + (credentials.map { ", signing in as \($0.username)" } ?? ""), remote: request.remoteAddress)
            let replay = SessionReplay(plan: plan, credentials: credentials, serviceProvider: serviceProvider,
                now: console.configuration.now, batcher: console.batcher, logger: console.logger)
            return .api(try await replay.run(session: session.id, recorded: events), status: .created)
        }
    }

    /// The credentials a replay signs in with: the ones given, else a demo subscriber of the recorded MVPD entitled
    /// to the recorded resources; nil when the recording never signed in.
    func replayCredentials(_ asked: ReplayRequest, plan: ReplayPlan) throws(HTTPError) -> SessionReplay.Credentials? {
        switch (asked.username, asked.password) {
        case (let username?, let password?) where !username.isEmpty:
            return SessionReplay.Credentials(username: username, password: password, source: "as given")
        case (nil, nil), ("", _): break
        default:
            throw HTTPError(.badRequest, code: "incomplete_credentials", message: "Give both a username and a password, or neither.")
        }
        guard let mvpd = plan.loginMvpd else { return nil }
        let ofMvpd = catalog.demoSubscribers.filter { $0.mvpd == mvpd }
        let entitled = { (subscriber: DemoSubscriber) in subscriber.entitlements.contains("*") || Set(plan.resources).isSubset(of: subscriber.entitlements) }
        guard let subscriber = ofMvpd.first(where: entitled) ?? ofMvpd.first else {
            throw HTTPError(.badRequest, code: "credentials_required",
                message: "The recorded session signed in with \(mvpd), and the local backend has no demo subscriber there: "
                    + "give the username and password to sign in with.")
        }
        return SessionReplay.Credentials(username: subscriber.username, password: subscriber.password,
            source: "demo subscriber of \(mvpd)")
    }
}
