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
        /// The visitor IDs the app set (`setOptions`), as its requests carried them.
        var visitorIDs: [String] = []
        /// Which protocol the client speaks, and in words (`web`, `Web (JS)`).
        var client: ClientKind
        var clientLabel: String
    }

    static func addSessionRoutes(to router: inout Router, _ box: ConsoleBox) {
        router.get("/api/sessions") { request in
            let console = try box.get()
            let text = request.query("q") ?? ""
            guard text.utf8.count <= Console.sessionSearchLength else {
                throw HTTPError(.badRequest, code: "invalid_parameter", message: "The search is too long: at most \(Console.sessionSearchLength) bytes.")
            }
            let limit = try request.query("limit", as: Int.self, in: Console.sessionPageLimit, default: 200)
            let (sort, cursor) = try sessionSort(request)
            return .api(try await console.sessionPage(matching: text, sort: sort, after: cursor, limit: limit, now: console.configuration.now()))
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
                contract: CallbackContract.check(events), flow: FlowProgress.replay(events),
                visitorIDs: (try? await console.history.values(of: .visitorID, sessions: [session.id]))?[session.id] ?? [],
                client: session.client, clientLabel: session.client.label))
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
            let reveal = try RevealChoice.parse(request)
            let now = console.configuration.now()
            let storage = try? await console.storageReport(now: now)
            var redaction = console.personalDataRedaction()
            let bundle = SupportBundle(session: session, events: events,
                health: await console.healthCard(session, events, storage: storage, now: now), storage: storage, now: now,
                reveal: reveal, redaction: &redaction)
            let report = bundle.manifest.personalData
            try await console.history.audit(report.revealed ? "reveal" : "export",
                detail: "Support bundle of session \(session.id.uuidString) (\(session.bundleID), \(events.count) events)"
                    + (report.revealed ? " WITH personal data" : ", redacted: \(report.removedText)"), by: console.actor(request))
            let stamp = EntitlementEvent.Wire.format(now).replacingOccurrences(of: ":", with: "-")
            return .export(try APICoding.encode(bundle),
                filename: "passconsole-support-\(session.id.uuidString.prefix(8))-\(stamp).json", contentType: "application/json",
                count: events.count, unit: "events", report: report)
        }
    }
}

extension Console {
    /// `sort=`, `order=` and `cursor=` of `GET /api/sessions`: a column the history sorts by (``SessionSortKey``), a
    /// direction (the column's own when left out), and a cursor of that same sort; anything else is a 400 that says
    /// what is allowed.
    static func sessionSort(_ request: Request) throws(HTTPError) -> (SessionSort, SessionCursor?) {
        func nonEmpty(_ name: String) -> String? { request.query(name).flatMap { $0.isEmpty ? nil : $0 } }
        var key = SessionSort.default.key
        if let name = nonEmpty("sort") {
            guard let known = SessionSortKey(rawValue: name) else {
                throw HTTPError(.badRequest, code: "invalid_parameter",
                    message: "Sessions cannot be sorted by '\(name.prefix(40))': sort by one of "
                        + SessionSortKey.allCases.map(\.rawValue).joined(separator: ", ") + ".")
            }
            key = known
        }
        var order: SessionSortOrder?
        if let name = nonEmpty("order") {
            guard let known = SessionSortOrder(rawValue: name) else {
                throw HTTPError(.badRequest, code: "invalid_parameter", message: "order must be asc or desc, not '\(name.prefix(40))'.")
            }
            order = known
        }
        let sort = SessionSort(key: key, order: order)
        guard let token = nonEmpty("cursor") else { return (sort, nil) }
        guard let cursor = SessionCursor(token: token) else {
            throw HTTPError(.badRequest, code: "invalid_parameter", message: "cursor is not one this console gave: pass the nextCursor of the previous page.")
        }
        guard cursor.sort == sort else {
            throw HTTPError(.badRequest, code: "invalid_parameter",
                message: "cursor continues the list sorted by \(cursor.sort.key.rawValue) \(cursor.sort.order.rawValue), not by \(sort.key.rawValue) \(sort.order.rawValue): start again without it.")
        }
        return (sort, cursor)
    }

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
        return try StorageReport.build(devices: configuration.devices, apps: await knownApps(), allowedMvpds: catalog.allowedMvpds,
            perRequestorMvpds: catalog.perRequestorMvpds, now: now)
    }

    /// The session's health card over `storage`, with the backend's record of each registration code its TV showed.
    func healthCard(_ session: HistorySession, _ events: [EntitlementEvent], storage: StorageReport?, now: Date) async -> HealthCard {
        var regcodes: [String: RegcodeLife] = [:]
        if let admin = BackendAdmin(baseURL: configuration.backendURL) {
            for code in SecondScreenCode.codes(in: events) { regcodes[code] = await admin.regcodeLife(code) }
        }
        return HealthCard.make(session: session, events: events, storage: storage, now: now, regcodes: regcodes,
            neighbours: await storageNeighbours(of: session, now: now),
            appleLogoutBefore: await appleSSOLogout(before: session),
            signIn: apps.first { $0.spec.app.bundleID == session.bundleID }.flatMap { view(of: $0).signIn })
    }

    /// The newest logout under Apple SSO (`VSA203`) on `session`'s device before it started: a launch that then signs
    /// in through the Apple dialog is the device still signed in at Settings → TV Provider (field problem #19).
    func appleSSOLogout(before session: HistorySession) async -> EntitlementEvent? {
        let filter = HistoryFilter(deviceID: session.deviceID, kinds: [.callback], text: "VSA203", until: session.firstSeen)
        return try? await history.latestPage(matching: filter, limit: 1).events.first?.event
    }

    /// The logouts other apps made, while `session` ran, in the storage domain it reads (its team's shared storage
    /// on iOS, its own on tvOS; the newest 200): they clear its sign-in too.
    func storageNeighbours(of session: HistorySession, now: Date) async -> [EntitlementEvent] {
        let domain = session.platform == .iOS ? "team \(session.teamID)" : "app \(session.bundleID)"
        let filter = HistoryFilter(kinds: [.storageChanged], text: "logout", from: session.firstSeen, until: now.addingTimeInterval(60))
        let page = (try? await history.latestPage(matching: filter, limit: 200).events.map(\.event)) ?? []
        return page.filter { event in
            guard event.sessionID != session.id, case .storageChanged(let changed, _) = event.kind else { return false }
            return changed == domain
        }
    }
}

extension Console {
    /// What `POST /api/sessions/{id}/replay` accepts: credentials for the MVPD login pages (both or neither), and the
    /// demo subscriber to sign in as per MVPD (the picker's answer when the recording did not tell who signed in).
    struct ReplayRequest: Decodable {
        var username: String?
        var password: String?
        var subscribers: [String: String]?

        init(username: String? = nil, password: String? = nil, subscribers: [String: String]? = nil) {
            self.username = username
            self.password = password
            self.subscribers = subscribers
        }

        private enum CodingKeys: String, CodingKey { case username, password, subscribers }

        /// Left out or given, never `null` (a `null` password beside a username must not read as "no credentials").
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            username = try container.decodeUnlessNull(String.self, forKey: .username)
            password = try container.decodeUnlessNull(String.self, forKey: .password)
            subscribers = try container.decodeUnlessNull([String: String].self, forKey: .subscribers)
        }
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
            let signIns = plan.logins.isEmpty ? [] : await BackendAdmin(baseURL: backend)?.signIns()
            let who = ReplaySubscribers(plan: plan, deviceID: session.deviceID, subscribers: console.catalog.demoSubscribers,
                signIns: signIns)
            let credentials: [String: SessionReplay.Credentials]
            switch try who.resolve(asked) {
            case .success(let resolved): credentials = resolved
            case .failure(let question): return .api(question, status: .conflict)
            }
            let signingIn = credentials.sorted { $0.key < $1.key }.map { "\($0.value.username) at \($0.key)" }
            try await console.history.audit("replay", detail: "Replay of session \(session.id.uuidString) (\(session.bundleID), "
                + "\(plan.steps.count) calls)" + (signingIn.isEmpty ? "" : ", signing in as \(signingIn.joined(separator: ", "))"),
                by: console.actor(request))
            let replay = SessionReplay(plan: plan, credentials: credentials, serviceProvider: serviceProvider,
                now: console.configuration.now, batcher: console.batcher, logger: console.logger)
            return .api(try await replay.run(session: session.id, recorded: events), status: .created)
        }
    }
}
