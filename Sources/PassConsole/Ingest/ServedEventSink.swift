import AccessEnabler
import PassEvents
import Foundation
import PassHistory

/// Where the in-process backend's record of what it served goes (`passconsole serve`): the console's history, through
/// the same batcher as the demo apps' events, joined with the demo apps' own sessions.
///
/// **One session, not two.** An exchange of one of the console's own apps is recorded twice: by the app's SDK (its
/// `httpExchange` event) and by the backend. The backend's copy of such an exchange is not stored again; what only
/// the server saw (a sign-in it made, a revocation, a logout) is stored in the app's session, with the recorder's
/// sequence negated (the SDK's own sequences count up from 0, so the two never collide). Exchanges of clients the
/// console does not run (a browser, a REST v1 box, a real app) keep the backend's own session per device.
final class ServedEventSink: EventSink {
    private let continuation: AsyncStream<EntitlementEvent>.Continuation
    private let apps: @Sendable () -> [ConsoleApp]
    private let counter: @Sendable (Int) -> Void

    /// `lost` counts events dropped on the way (the recorder's queue, or this sink's own bound when the history
    /// falls behind) into the console's dropped count.
    init(batcher: EventBatcher, apps: @escaping @Sendable () -> [ConsoleApp], lost: @escaping @Sendable (Int) -> Void) {
        let (stream, continuation) = AsyncStream<EntitlementEvent>.makeStream(bufferingPolicy: .bufferingNewest(100_000))
        self.continuation = continuation
        self.apps = apps
        counter = lost
        Task.detached { await batcher.consume(stream) }
    }

    func lost(_ count: Int) {
        if count > 0 { counter(count) }
    }

    deinit { continuation.finish() }

    func emit(_ event: EntitlementEvent) {
        // Redacted already: the recorder (``ExchangeRecorder``) applies the secret rule before anything leaves it.
        guard let joined = Self.join(event, apps: apps()) else { return }
        if case .dropped = continuation.yield(joined) { counter(1) }
    }

    /// `event` as stored: into the console app's session whose device it names, or as it is; `nil` when the app's
    /// SDK recorded the same exchange itself.
    static func join(_ event: EntitlementEvent, apps: [ConsoleApp]) -> EntitlementEvent? {
        // Only the local backend's record duplicates the demo apps' own: a proxy's traffic comes from elsewhere.
        guard case .httpExchange(let exchange) = event.kind, let served = exchange.served, served.recorder == .backend,
            served.client.sdkPlatform != nil
        else { return event }
        // The SDK's configuration call names no device: one of the console's apps of that Programmer made it.
        if event.deviceID.hasPrefix("address:"), apps.contains(where: { $0.isRunning && $0.spec.requestorID == event.requestorID }) {
            return nil
        }
        guard let app = apps.first(where: { $0.runningSession?.deviceID == event.deviceID }),
            let running = app.runningSession
        else { return event }
        guard served.change != nil else { return nil }
        var joined = event
        joined.sessionID = running.sessionID
        joined.app = app.spec.app
        joined.sequence = -abs(event.sequence)
        return joined
    }
}
