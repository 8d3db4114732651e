import CMicroHTTPD
import Foundation
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// Keeps slow or greedy clients from holding every connection:
///
/// - **per-client limit**: a client address (other than loopback, which is this machine) may hold at most
///   ``HTTPServerConfiguration/perClientConnectionLimit`` connections; more are refused at accept;
/// - **head deadline**: a connection must deliver a whole request head within
///   ``HTTPServerConfiguration/headTimeout`` of being accepted or of sending its request line — trickling a byte at a
///   time does not extend it (libmicrohttpd's own timeout only counts silence) — and an idle kept-alive connection
///   within its inactivity timeout plus that. A late connection is shut down; libmicrohttpd then closes it.
///
/// Connections are tracked from libmicrohttpd's connection notifications; the sweep runs on a thread of its own.
final class ConnectionWatch: Sendable {
    enum Phase: Sendable {
        /// Accepted or sent a request line: the head must be complete by the deadline.
        case awaitingHead
        /// Head received: a handler, an upload or a stream is in progress (not the watch's business).
        case working
        /// Between requests on a kept-alive connection.
        case idle
    }

    struct Entry: Sendable {
        var fd: Int32
        var peer: String
        var since: ContinuousClock.Instant
        var phase: Phase
    }

    struct State: Sendable {
        var entries: [UInt: Entry] = [:]
        var perPeer: [String: Int] = [:]
        /// Connections let through at accept whose "started" notification has not come yet, per client: counted
        /// against the limit too, or two network threads accepting at once both see room for one (a test saw 6
        /// connections under a limit of 5). Dropped after a few seconds if libmicrohttpd never started it.
        var reserved: [String: [ContinuousClock.Instant]] = [:]
        var refused = 0
        var reaped = 0
        var running = true
    }

    let state = Mutex(State())
    let perClientLimit: Int
    let headTimeout: Duration
    let idleTimeout: Duration

    init(perClientLimit: Int, headTimeout: Duration, idleTimeout: Duration) {
        self.perClientLimit = perClientLimit
        self.headTimeout = headTimeout
        self.idleTimeout = idleTimeout
    }

    private static func key(_ connection: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection))) }

    /// Whether a new connection from `peer` may be accepted.
    func mayAccept(peer: String) -> Bool {
        guard perClientLimit > 0, !LocalAddresses.isLoopback(peer), !peer.hasPrefix("::ffff:127.") else { return true }
        let now = ContinuousClock.now
        return state.withLock { state in
            var pending = state.reserved[peer, default: []]
            pending.removeAll { now - $0 > .seconds(5) }
            guard state.perPeer[peer, default: 0] + pending.count < perClientLimit else {
                state.reserved[peer] = pending.isEmpty ? nil : pending
                state.refused += 1
                return false
            }
            pending.append(now)
            state.reserved[peer] = pending
            return true
        }
    }

    func opened(_ connection: OpaquePointer) {
        var peer = [CChar](repeating: 0, count: 64)
        pc_connection_peer(connection, &peer, peer.count)
        let entry = Entry(fd: pc_connection_fd(connection), peer: peer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }, since: .now, phase: .awaitingHead)
        state.withLock { state in
            state.entries[Self.key(connection)] = entry
            state.perPeer[entry.peer, default: 0] += 1
            if var pending = state.reserved[entry.peer], !pending.isEmpty {
                pending.removeFirst()
                state.reserved[entry.peer] = pending.isEmpty ? nil : pending
            }
        }
    }

    func closed(_ connection: OpaquePointer) {
        state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: Self.key(connection)) else { return }
            let count = state.perPeer[entry.peer, default: 1] - 1
            state.perPeer[entry.peer] = count > 0 ? count : nil
        }
    }

    /// A request line arrived: its head is now due.
    func requestLine(_ connection: OpaquePointer) { set(connection, .awaitingHead) }
    /// The head is complete.
    func headReceived(_ connection: OpaquePointer) { set(connection, .working) }
    /// The answer went out; the connection may stay open for another request.
    func requestCompleted(_ connection: OpaquePointer) { set(connection, .idle) }

    private func set(_ connection: OpaquePointer, _ phase: Phase) {
        state.withLock { state in
            let key = Self.key(connection)
            guard state.entries[key] != nil else { return }
            if state.entries[key]!.phase != .awaitingHead || phase != .awaitingHead { state.entries[key]!.since = .now }
            state.entries[key]!.phase = phase
        }
    }

    /// Shuts down every connection past its deadline; returns how many.
    @discardableResult
    func sweep(now: ContinuousClock.Instant = .now) -> Int {
        state.withLock { state in
            var count = 0
            for (key, entry) in state.entries {
                let limit: Duration
                switch entry.phase {
                case .awaitingHead: limit = headTimeout
                case .idle: limit = idleTimeout
                case .working: continue
                }
                guard now - entry.since > limit, entry.fd >= 0 else { continue }
                // shutdown, not close: the descriptor stays libmicrohttpd's until it sees the end and closes it, and
                // the entry is dropped before that (its close notification takes the same lock), so the number is
                // never one a newer connection got.
                shutdown(entry.fd, Int32(SHUT_RDWR))
                state.entries[key]!.fd = -1
                count += 1
            }
            state.reaped += count
            return count
        }
    }

    /// Sweeps every quarter second until ``stop()``.
    func startSweeping() {
        let thread = Thread { [self] in
            while state.withLock({ $0.running }) {
                Thread.sleep(forTimeInterval: 0.25)
                sweep()
            }
        }
        thread.name = "MicroHTTP.ConnectionWatch"
        thread.start()
    }

    func stop() { state.withLock { $0.running = false } }

    /// Connections refused by the per-client limit and shut down at their deadline so far.
    var counts: (refused: Int, reaped: Int) { state.withLock { ($0.refused, $0.reaped) } }
}
