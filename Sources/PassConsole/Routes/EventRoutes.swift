import AccessEnabler
import Foundation
import MicroHTTP
import PassHistory

extension Console {
    /// Counting a filter's events stops past this many (the page says "more than").
    static let countLimit = 100_000

    /// The `q=` filter as written (its `app:` terms not yet resolved). - Throws: 400 `invalid_filter` with the reason.
    static func parsedFilter(_ request: Request) throws(HTTPError) -> FilterQuery {
        do { return try FilterQuery(request.query("q")) } catch { throw invalidFilter(error, request) }
    }

    static func invalidFilter(_ error: FilterQuery.Invalid, _ request: Request) -> HTTPError {
        HTTPError(.badRequest, code: "invalid_filter", message: error.message, detail: error.detail ?? request.query("q"))
    }

    /// The `q=` filter, its `app:` terms resolved to bundle IDs (``AppTerm``).
    func filter(_ request: Request) async throws(HTTPError) -> HistoryFilter {
        var query = try Self.parsedFilter(request)
        guard !query.appTerms.isEmpty else { return query.filter }
        let known = query.appsAreBundleIDs(among: ownApps) ? ownApps : await appsForTerms()
        do { try query.resolveApps(among: known) } catch { throw Self.invalidFilter(error, request) }
        return query.filter
    }

    /// The console's own apps, by the names its pages show.
    var ownApps: [AppTerm.Known] { apps.map { AppTerm.Known(bundleID: $0.spec.app.bundleID, name: $0.spec.name) } }

    /// The console's own apps and every other app the history has sessions of (by bundle ID only).
    func appsForTerms() async -> [AppTerm.Known] {
        var known = ownApps
        let own = Set(known.map { $0.bundleID.lowercased() })
        for bundleID in (try? await history.appBundleIDs(limit: 10_000)) ?? [] where !own.contains(bundleID.lowercased()) {
            known.append(AppTerm.Known(bundleID: bundleID, name: nil))
        }
        return known
    }

    static func addEventRoutes(to router: inout Router, _ box: ConsoleBox) {
        // Answered from the history's reader queue through a completion callback: no task, no hop through the
        // concurrency pool; the parameters are judged on the network thread before the read starts.
        router.get("/api/events", later: { request, reply in
            let console = try box.get()
            var query = try parsedFilter(request)
            let limit = try request.query("limit", as: Int.self, in: Console.eventPageLimit, default: 200)
            let before = try request.query("before", as: Int64.self, in: Console.cursorRange)
            let after = try request.query("after", as: Int64.self, in: Console.cursorRange)
            let answer: @Sendable (Result<RawPage, any Error>) -> Void = { page in
                reply(page.map { .json(data: RawEventPage.json($0)) })
            }
            let window = try request.query("window", as: Int.self, in: Console.eventWindow)
            if window != nil, after != nil {
                throw HTTPError(.badRequest, code: "invalid_parameter", message: "window= pages back in time: use it with before=, not after=.")
            }
            let read: @Sendable (HistoryFilter) -> Void = { filter in
                if let window {
                    console.history.rawWindowPageWithCounts(matching: filter, before: before, seconds: TimeInterval(window), limit: limit,
                        countLimit: Console.countLimit, completion: answer)
                } else {
                    console.history.rawPageWithCounts(matching: filter, before: before, after: after, limit: limit,
                        countLimit: Console.countLimit, completion: answer)
                }
            }
            let own = console.ownApps
            if query.appsAreBundleIDs(among: own) {
                do throws(FilterQuery.Invalid) { try query.resolveApps(among: own) } catch { throw invalidFilter(error, request) }
                return read(query.filter)
            }
            // An app written by its name or the end of its bundle ID: looked up among the history's apps first.
            Task {
                do { read(try await console.filter(request)) } catch { reply(.failure(error)) }
            }
        })
        router.get("/api/events/stream") { request in
            let console = try box.get()
            return try await console.liveFeed(filter: try await console.filter(request), request: request)
        }
        router.get("/api/events/export") { request in
            let console = try box.get()
            let filter = try await console.filter(request)
            let format = request.query("format") ?? "ndjson"
            guard format == "ndjson" || format == "csv" else {
                throw HTTPError(.badRequest, code: "unknown_format", message: "format must be ndjson or csv.")
            }
            let reveal = try RevealChoice.parse(request)
            let (events, report) = console.exportable(try await console.history.page(matching: filter, limit: 1_000_000).events,
                reveal: reveal)
            try await console.auditReveal("\(events.count) events", report: report, by: console.actor(request))
            let now = Date()
            let stamp = EntitlementEvent.Wire.format(now).replacingOccurrences(of: ":", with: "-")
            if format == "csv" {
                return .export(Data(EventCSV.make(events, report: report).utf8), filename: "passconsole-events-\(stamp).csv",
                    contentType: "text/csv; charset=utf-8", count: events.count, unit: "events", report: report)
            }
            var body = try APICoding.encode(EventExportHeader(exportedAt: now, count: events.count, personalData: report))
            body.append(0x0A)
            body.append(try EntitlementEvent.Wire.ndjson(events.map(\.event)))
            return .export(body, filename: "passconsole-events-\(stamp).ndjson", contentType: "application/x-ndjson",
                count: events.count, unit: "events", report: report)
        }
        router.get("/api/network/har") { request in
            let console = try box.get()
            var filter = try await console.filter(request)
            filter.kinds = [.httpExchange]
            let reveal = try RevealChoice.parse(request)
            let (events, report) = console.exportable(try await console.history.page(matching: filter, limit: 1_000_000).events,
                reveal: reveal)
            try await console.auditReveal("\(events.count) HTTP exchanges (HAR)", report: report, by: console.actor(request))
            let stamp = EntitlementEvent.Wire.format(Date()).replacingOccurrences(of: ":", with: "-")
            return .export(try APICoding.encode(HARDocument(events.map(\.event), personalData: report)),
                filename: "passconsole-\(stamp).har", contentType: "application/json", count: events.count, unit: "exchanges",
                report: report)
        }
        router.post("/api/ingest") { request in
            let console = try box.get()
            let dropped = try request.header("X-PassConsole-Dropped", as: Int.self, in: Console.droppedPerBatch, default: 0)
            return try await console.ingestGate.run {
                let parsed = NDJSONEvents.parse(request.body)
                console.metrics.ingestFailed(.rejectedLine, count: parsed.rejected.count)
                guard !parsed.events.isEmpty || !parsed.rejected.isEmpty else {
                    console.metrics.ingestFailed(.emptyBatch)
                    throw HTTPError(.badRequest, code: "empty_batch", message: "The body holds no events (one JSON event per line).")
                }
                let accepted = try await console.ingest(parsed.events, droppedByReporter: dropped)
                let status: HTTPStatus = parsed.events.isEmpty ? .badRequest : .ok
                return Response.api(IngestResult(accepted: accepted, duplicates: parsed.events.count - accepted,
                    rejected: parsed.rejected), status: status)
            }
        }
    }

    struct IngestResult: Encodable {
        var accepted: Int
        var duplicates: Int
        var rejected: [NDJSONEvents.Rejection]
    }

    /// A Server-Sent Events feed of the stored events matching `filter`: after `Last-Event-ID` (or `after=`) when
    /// given, so a reconnecting page misses nothing, else from now on. Every client shares the console's one
    /// ``LiveFeed``; a resume reads its gap from the history, so it reaches as far back as the history does.
    func liveFeed(filter: HistoryFilter, request: Request) async throws -> Response {
        let resumeText = request.header("Last-Event-ID")?.trimmingCharacters(in: .whitespaces)
            ?? request.query("lastEventId") ?? request.query("after")
        let resume = try BoundedInput.integer(resumeText, named: "Last-Event-ID", in: Console.cursorRange)
        // A viewer's stream is redacted as every other answer to a viewer is (ViewerRedaction).
        let identity = identity(of: request)
        let rewrite: (@Sendable (String) -> String)? =
            identity.role == .viewer ? { @Sendable [weak self] view in self?.redactedViewForViewer(view) ?? "{}" } : nil
        let subscription = try await live.subscribe(filter: filter, after: resume, rewrite: rewrite)
        openFeeds.watch(subscription, request: request, identity: identity)
        return .eventStream(subscription)
    }

    /// Closes each open live feed whose request the door no longer passes as it did (``OpenFeedWatch``).
    @discardableResult
    func rejudgeOpenFeeds() -> Int {
        openFeeds.rejudge { request in
            if case .pass(let identity) = accessGuard.identify(request, path: request.path) { return identity }
            return nil
        }
    }
}
