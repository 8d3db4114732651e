import Foundation
import Locking

/// One client's place in an ``EventStream``: a bounded buffer of bytes not yet sent.
///
/// The server pulls bytes with ``read(into:maxLength:park:)``; when there is nothing to send it parks the
/// connection, and the next ``enqueue(_:)`` wakes it. Both happen under one lock, so no wake-up is lost.
public final class EventStreamSubscription: Sendable {
    /// What a read produced.
    public enum ReadResult: Equatable, Sendable {
        /// This many bytes were copied.
        case bytes(Int)
        /// Nothing to send yet; the connection was parked and will be woken.
        case parked
        /// The stream ended normally.
        case finished
        /// The subscriber fell too far behind and is cut off.
        case overflowed
    }

    private struct State {
        var pending = Data()
        var closed = false
        var overflowed = false
        var parked = false
        var wake: (@Sendable () -> Void)?
        var finished = false
        var onFinish: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())
    private let limit: Int

    init(limit: Int) { self.limit = limit }

    /// A subscription its owner feeds directly, without an ``EventStream``: a per-client feed (a filtered stream,
    /// a resume read from a database). Answer a request with it through ``Response/eventStream(_:)``.
    /// - Parameter bufferLimit: bytes the client may have queued before it is cut off.
    public convenience init(bufferLimit: Int = 1 << 20) { self.init(limit: bufferLimit) }

    /// Queues one event (a standalone subscription's owner calls this).
    public func send(_ event: ServerSentEvent) { enqueue(event.encoded) }

    /// Queues a comment line (`: text`), which clients ignore: a heartbeat that keeps proxies from closing the stream
    /// and lets the server notice a vanished client.
    public func sendComment(_ text: String) { enqueue(Data(": \(text)\n\n".utf8)) }

    /// Queues the `retry:` advice (milliseconds a client waits before reconnecting).
    public func sendRetry(milliseconds: Int) { enqueue(Data("retry: \(milliseconds)\n\n".utf8)) }

    /// True once the client left, the subscriber overflowed or the stream ended.
    public var isFinished: Bool { state.withLock { $0.finished || $0.overflowed } }

    /// Sets what to run once when the client is gone (to stop feeding it).
    public func whenFinished(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.onFinish = handler }
    }

    var onFinish: (@Sendable () -> Void)? {
        get { state.withLock { $0.onFinish } }
        set { state.withLock { $0.onFinish = newValue } }
    }

    /// Bytes waiting to be sent.
    public var pendingByteCount: Int { state.withLock { $0.pending.count } }

    /// Queues bytes; cuts the subscriber off when its buffer would pass the limit.
    func enqueue(_ bytes: Data) {
        let overflowed = state.withLock { state -> Bool in
            guard !state.closed, !state.overflowed else { return false }
            if state.pending.count + bytes.count > limit {
                state.overflowed = true
                state.pending.removeAll()
            } else {
                state.pending.append(bytes)
            }
            wakeLocked(&state)
            return state.overflowed
        }
        // Leave the stream at once: a client that does not read may not be written to again until the server's
        // inactivity timeout closes its connection, and meanwhile it must cost nothing.
        if overflowed { onFinish?() }
    }

    /// Ends the stream after what is already queued.
    public func close() {
        state.withLock { state in
            state.closed = true
            wakeLocked(&state)
        }
    }

    /// Sets how to wake a parked connection (the server's resume).
    public func setWake(_ wake: @escaping @Sendable () -> Void) {
        state.withLock { $0.wake = wake }
    }

    /// Copies up to `maxLength` pending bytes into `buffer`; when none are pending and the stream is open, calls
    /// `park` (under the lock) and answers ``ReadResult/parked``.
    public func read(into buffer: UnsafeMutableRawPointer, maxLength: Int, park: () -> Void) -> ReadResult {
        state.withLock { state in
            if state.overflowed { return .overflowed }
            if state.pending.isEmpty {
                if state.closed { return .finished }
                state.parked = true
                park()
                return .parked
            }
            let count = min(maxLength, state.pending.count)
            state.pending.withUnsafeBytes { source in buffer.copyMemory(from: source.baseAddress!, byteCount: count) }
            state.pending.removeFirst(count)
            return .bytes(count)
        }
    }

    /// Called once by the server when the connection is gone; removes the subscriber from its stream.
    public func finish() {
        let onFinish = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.finished else { return nil }
            state.finished = true
            state.closed = true
            state.wake = nil
            return state.onFinish
        }
        onFinish?()
    }

    private func wakeLocked(_ state: inout State) {
        guard state.parked, let wake = state.wake else { return }
        state.parked = false
        wake()
    }
}
