import Foundation
import Locking
import PassProtocol
import PassStorage

/// Dynamic client registration and the access token for REST API v2 (docs/design/sdk-on-rest-v2.md §6), and the
/// ``V2State`` they live in (``AccessEnablerConfiguration/registrationStorage``, or memory when there is none).
///
/// The app registers once per service and software statement and keeps its credentials for good (rest-api-v2.md
/// §7.3: registering again loses the profiles of the old client); an access token is fetched only when none is kept
/// that lives at least another minute ("do not request a new token for every REST API v2 call", the checklist).
final class V2Registration: Sendable {
    typealias Failure = SDKClient.Failure

    let softwareStatement: String?
    let storage: StorageFile?
    private let now: @Sendable () -> Date
    /// The state as last read or written (the whole state when there is no storage file).
    private let memory: Mutex<V2State>
    /// Where problems go that are no call's failure (a write that failed, a registration made again).
    private let reporter = Mutex<(@Sendable (_ code: String, _ message: String) -> Void)?>(nil)

    /// A kept access token is used while it lives at least this much longer.
    static let tokenMargin: TimeInterval = 60

    init(softwareStatement: String?, storage: StorageFile?, now: @escaping @Sendable () -> Date) {
        self.softwareStatement = softwareStatement
        self.storage = storage
        self.now = now
        let loaded = (try? storage?.read()).flatMap { try? V2State.decode($0) } ?? V2State()
        memory = Mutex(loaded)
    }

    func setReporter(_ report: @escaping @Sendable (_ code: String, _ message: String) -> Void) {
        reporter.withLock { $0 = report }
    }

    private func report(_ code: String, _ message: String) {
        reporter.withLock { $0 }?(code, message)
    }

    // MARK: - The state

    /// The state as it is on disk (another AccessEnabler of the app may have changed it), else as last known.
    func state() -> V2State {
        guard let storage else { return memory.withLock { $0 } }
        do {
            let state = try V2State.decode(try storage.read())
            memory.withLock { $0 = state }
            return state
        } catch {
            report("storage", "The REST API v2 state (\(storage)) cannot be read: \(error). Using the last one read.")
            return memory.withLock { $0 }
        }
    }

    /// Changes the state under the file's lock and writes it at once; `true` when something changed. A failed write
    /// keeps the change in memory and is reported.
    @discardableResult
    func update(_ what: String, _ change: (inout V2State) -> Void) -> Bool {
        guard let storage else {
            return memory.withLock { state in
                let before = state
                change(&state)
                return state != before
            }
        }
        // Most calls change nothing (the same profile kept again): no lock, no write for them.
        var tried = state()
        change(&tried)
        guard tried != memory.withLock({ $0 }) else { return false }
        var changed = false
        do {
            try storage.update { data in
                var state = (try? V2State.decode(data)) ?? V2State()
                let before = state
                change(&state)
                changed = state != before
                memory.withLock { $0 = state }
                return state.encoded()
            }
        } catch {
            memory.withLock { state in
                let before = state
                change(&state)
                changed = state != before
            }
            report("storage", "The REST API v2 state (\(storage)) could not be written (\(what)): \(error)")
        }
        return changed
    }

    // MARK: - The access token

    /// The access token for `client`'s service: a kept one that lives another minute, else a new one with the kept
    /// credentials, else after registering the app (§6 steps 1–3).
    nonisolated(nonsending) func accessToken(using client: V2Client) async throws(Failure) -> String {
        guard let statement = softwareStatement, !statement.isEmpty else {
            throw .status(400, details: "No software statement is configured (AccessEnablerConfiguration.softwareStatement): the app cannot register for REST API v2.",
                code: Self.missingStatement)
        }
        let key = V2State.clientKey(origin: client.origin, softwareStatement: statement)
        if let token = liveToken(memory.withLock { $0.clients[key] }) { return token }
        var credentials = state().clients[key]
        if let token = liveToken(credentials) { return token }
        if let kept = credentials {
            do {
                return try await fetchToken(kept, key: key, client: client)
            } catch {
                guard case .status(_, _, let code?) = error, Self.lostCredentials.contains(code) else { throw error }
                update("registration: dropped credentials the service refused") { $0.clients[key] = nil }
                report("registration", "The service refused the kept client credentials (\(code)): registering again; the profiles of the old client are lost.")
                credentials = nil
            }
        }
        let (id, secret) = try await client.register(softwareStatement: statement)
        // Another AccessEnabler of the app may have registered meanwhile: its credentials win (one client per app).
        var registered = V2State.Client(clientID: id, clientSecret: secret)
        update("registration: client credentials") { state in
            if let other = state.clients[key] { registered = other } else { state.clients[key] = registered }
        }
        if let token = liveToken(registered) { return token }
        return try await fetchToken(registered, key: key, client: client)
    }

    /// After `token` was refused (`401`): forgets it and fetches another (§6 step 2, and 3 when the credentials are
    /// refused too).
    nonisolated(nonsending) func renewAccessToken(after token: String, using client: V2Client) async throws(Failure) -> String {
        let forget: (inout V2State) -> Void = { state in
            for (key, kept) in state.clients where kept.accessToken == token {
                state.clients[key]?.accessToken = nil
                state.clients[key]?.accessTokenExpires = nil
            }
        }
        memory.withLock { forget(&$0) }
        update("registration: dropped a refused access token", forget)
        return try await accessToken(using: client)
    }

    private func liveToken(_ client: V2State.Client?) -> String? {
        guard let token = client?.accessToken, let expires = client?.accessTokenExpires,
            EpochMilliseconds.date(expires).timeIntervalSince(now()) > Self.tokenMargin
        else { return nil }
        return token
    }

    private nonisolated(nonsending) func fetchToken(_ credentials: V2State.Client, key: String, client: V2Client) async throws(Failure) -> String {
        let (token, lifetime) = try await client.token(clientID: credentials.clientID, clientSecret: credentials.clientSecret)
        let expires = EpochMilliseconds.from(now().addingTimeInterval(TimeInterval(lifetime)))
        update("registration: access token") { state in
            var entry = state.clients[key] ?? credentials
            guard entry.clientID == credentials.clientID else { return }
            entry.accessToken = token
            entry.accessTokenExpires = expires
            state.clients[key] = entry
        }
        return token
    }

    /// The code of the failure when no software statement is configured.
    static let missingStatement = "missing_software_statement"
    /// The code of the failure when the token call answered no access token.
    static let noAccessToken = "no_access_token"
    /// The token call's errors that mean the credentials are no longer good.
    static let lostCredentials: Set<String> = ["invalid_client", "unauthorized_client"]
}
