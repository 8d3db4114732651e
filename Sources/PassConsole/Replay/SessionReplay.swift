import AccessEnabler
import Foundation
import Logging
import MicroHTTP
import PassHistory
import PassStorage
import Locking

/// Runs a recorded session again, as a fresh install of the same app on a scratch device, against the console's
/// own backend: the same calls in the same order, the MVPD login done with the given (or a demo subscriber's)
/// credentials. The replay is recorded like any session; the answer compares it with the recording.
struct SessionReplay {
    /// What the replay did, and how it compares with the recording.
    struct Result: Encodable {
        var recorded: UUID
        /// The replay's own session (open it like any other).
        var replay: UUID?
        /// Who signed in on the MVPD login pages, when the recording signed in (`dave (the recorded user at Dish)`).
        var signedInAs: String?
        /// Who signed in at each MVPD, and how the replay knew.
        var subscribers: [Subscriber]
        var steps: [StepResult]
        /// Calls of the recording not made again, in words.
        var skipped: [String]
        var diff: SessionDiff
    }

    struct Subscriber: Encodable, Equatable {
        var mvpd: String
        var username: String
        var source: String
    }

    struct StepResult: Encodable {
        var method: String
        var arguments: [String: String]
        /// Anything the replay could not do as recorded, in words; nil when the step ran.
        var note: String?
    }

    /// Credentials for one MVPD's login page of the replay.
    struct Credentials: Sendable {
        var username: String
        var password: String
        /// Where they came from, for the answer (`demo subscriber of Dish`, `given`).
        var source: String
    }

    let plan: ReplayPlan
    /// Credentials per MVPD (`""`: a login whose MVPD the recording does not name).
    let credentials: [String: Credentials]
    let serviceProvider: URL
    let now: @Sendable () -> Date
    let batcher: EventBatcher
    let logger: Logger

    /// Runs every step; waits up to `stepTimeout` for each to settle.
    func run(session: UUID, recorded: [EntitlementEvent], stepTimeout: Duration = .seconds(20)) async throws -> Result {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("passconsole-replay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let spec = ConsoleAppSpec(
            id: "replay", name: "Replay of \(plan.app.bundleID)", app: plan.app, requestorID: plan.requestorID,
            resources: plan.resources, mvpds: [])
        let collector = Collector()
        let batcher = self.batcher
        let app = ConsoleApp(
            spec: spec, device: ConsoleDevice(name: "replay", folder: DeviceFolder(root: scratch)), serviceProvider: serviceProvider,
            now: now, logger: logger
        ) { stream in
            collector.forward(stream, to: batcher)
        }
        var steps: [StepResult] = []
        do {
            try app.start()
            if !(await app.settle(timeout: stepTimeout)) {
                steps.append(StepResult(method: APIMethod.setRequestor.rawValue, arguments: ["requestorID": plan.requestorID],
                    note: "setRequestor did not finish in time; the replay stopped."))
            } else {
                steps.append(StepResult(method: APIMethod.setRequestor.rawValue, arguments: ["requestorID": plan.requestorID]))
                for step in plan.steps {
                    let note = await perform(step, on: app)
                    steps.append(StepResult(method: step.method, arguments: step.arguments, note: note))
                    if !(await app.settle(timeout: stepTimeout)) {
                        steps.append(StepResult(method: step.method, arguments: step.arguments,
                            note: "The app was still busy after \(stepTimeout); the replay stopped here."))
                        break
                    }
                }
            }
        } catch {
            steps.append(StepResult(method: APIMethod.setRequestor.rawValue, arguments: [:], note: "The replay app could not start: \(error)"))
        }
        app.stop()
        let events = await collector.finished()
        let unnamed = plan.logins.contains { $0.mvpd == nil } ? [""] : []
        let subscribers = (plan.loginMvpds + unnamed).compactMap { mvpd in
            credentials[mvpd].map { Subscriber(mvpd: mvpd, username: $0.username, source: $0.source) }
        }
        return Result(
            recorded: session, replay: events.first?.sessionID,
            signedInAs: subscribers.isEmpty ? nil : subscribers.map { "\($0.username) (\($0.source))" }.joined(separator: ", "),
            subscribers: subscribers, steps: steps, skipped: plan.skipped, diff: SessionDiff(recorded, events))
    }

    /// Keeps the replay's events (for the comparison) while passing them to the history.
    private final class Collector: Sendable {
        private let events = Mutex<[EntitlementEvent]>([])
        private let task = Mutex<Task<Void, Never>?>(nil)

        func forward(_ stream: AsyncStream<EntitlementEvent>, to batcher: EventBatcher) {
            task.withLock {
                $0 = Task.detached { [self] in
                    for await event in stream {
                        self.events.withLock { $0.append(event) }
                        await batcher.add(event)
                    }
                    await batcher.flush()
                }
            }
        }

        /// Every event, once the stream has ended (after the app stopped) and the history has them.
        func finished() async -> [EntitlementEvent] {
            await task.withLock { $0 }?.value
            return events.withLock { $0 }
        }
    }

    /// Makes one call; returns a note when it could not be made as recorded.
    private func perform(_ step: ReplayPlan.Step, on app: ConsoleApp) async -> String? {
        switch step.method {
        case "signIn":
            guard let credentials = credentials[step.arguments["mvpd"] ?? ""] else {
                return "No credentials for the MVPD login page: the login was not completed."
            }
            guard app.isAtLoginPage else {
                return "No MVPD login page was open at this point (the replay took another path), so there was nothing to sign in to."
            }
            do {
                try await app.login(username: credentials.username, password: credentials.password)
                return nil
            } catch {
                return "The sign-in as \(credentials.username) failed: \(error.message)"
            }
        default:
            do {
                try app.call(step.method, arguments: step.arguments)
                return nil
            } catch {
                return error.message
            }
        }
    }
}
