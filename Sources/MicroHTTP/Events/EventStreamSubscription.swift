import Foundation
import Locking

/// One Server-Sent Events client's place in its owner's feed: a bounded buffer of bytes not yet sent.
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
        var pending = PendingBytes()
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

    /// A subscription its owner feeds: a per-client feed (a filtered stream, a resume read from a database).
    /// Answer a request with it through ``Response/eventStream(_:)``.
    /// - Parameter bufferLimit: bytes the client may have queued before it is cut off.
    public convenience init(bufferLimit: Int = 1 << 20) { self.init(limit: bufferLimit) }

    /// Queues one event (a standalone subscription's owner calls this).
    public func send(_ event: ServerSentEvent) { enqueue(event.encoded) }

    /// Queues an event already in wire form (``ServerSentEvent/encoded``): one encoding shared by many subscribers
    /// is kept once, not copied per subscriber. Cuts the subscriber off when its buffer would pass the limit.
    public func send(encoded bytes: Data) { enqueue(bytes) }

    /// Queues `bytes` when they fit in the buffer; when they do not, queues `notice` instead (past the limit: it is
    /// small) and ends the stream after it, so the client reads what it was sent, then the notice, then the end —
    /// never a cut in the middle. Returns false when the stream did not take `bytes` (it ended here, or before).
    /// Unlike ``send(encoded:)`` this does not run the ``whenFinished(_:)`` handler: the caller knows.
    public func send(encoded bytes: Data, orEndWith notice: () -> Data) -> Bool {
        state.withLock { state -> Bool in
            guard !state.closed, !state.overflowed else { return false }
            if state.pending.count + bytes.count > limit {
                state.pending.append(notice())
                state.closed = true
                wakeLocked(&state)
                return false
            }
            state.pending.append(bytes)
            wakeLocked(&state)
            return true
        }
    }

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
                state.pending = PendingBytes()
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
            return .bytes(state.pending.take(into: buffer, maxLength: maxLength))
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

/// The bytes a subscription has not sent yet: the queued chunks as they came (an event's encoding shared by every
/// subscriber stays one buffer), read from the front. Taking bytes moves an offset; nothing is shifted.
struct PendingBytes {
    private var chunks: [Data] = []
    private var head = 0
    private var offset = 0
    /// Bytes not yet taken.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Bytes the queue still holds on to, sent ones included (chunks not yet dropped): what it costs in memory.
    var retainedByteCount: Int { chunks.reduce(0) { $0 + $1.count } }

    mutating func append(_ bytes: Data) {
        guard !bytes.isEmpty else { return }
        chunks.append(bytes)
        count += bytes.count
    }

    /// Copies up to `maxLength` bytes into `buffer` and drops them; returns how many.
    mutating func take(into buffer: UnsafeMutableRawPointer, maxLength: Int) -> Int {
        var copied = 0
        while copied < maxLength, head < chunks.count {
            let chunk = chunks[head]
            let length = min(maxLength - copied, chunk.count - offset)
            chunk.withUnsafeBytes { source in
                (buffer + copied).copyMemory(from: source.baseAddress! + offset, byteCount: length)
            }
            copied += length
            offset += length
            if offset == chunk.count {
                head += 1
                offset = 0
            }
        }
        count -= copied
        if head == chunks.count {
            chunks.removeAll(keepingCapacity: chunks.count < 1024)
            head = 0
        } else if head >= 64, head * 2 >= chunks.count {
            chunks.removeFirst(head)
            head = 0
        }
        return copied
    }
}
