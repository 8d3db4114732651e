import Foundation
import MicroHTTP
import PassHistory

extension LiveFeed {
    /// A resuming client's gap, `(from, to]`, read from the history for it alone (at the pace it reads), then its
    /// place in the shared feed: the events published meanwhile (held for it) follow, and it is live. When more
    /// arrived meanwhile than the feed holds, the gap grows to the feed's position and is read too.
    func catchUp(
        _ key: ObjectIdentifier, filter: HistoryFilter, subscription: EventStreamSubscription,
        rewrite: (@Sendable (String) -> String)?, from start: Int64, to end: Int64
    ) async {
        var cursor = start
        var target = end
        while true {
            while cursor < target {
                // At the client's pace: its buffer is the bound, the history holds the rest.
                while subscription.pendingByteCount > limits.clientBuffer / 2, !subscription.isFinished {
                    try? await Task.sleep(for: .milliseconds(10))
                }
                guard !subscription.isFinished, !Task.isCancelled else { return remove(key) }
                let read: (events: [RawEventRow], reached: Int64)
                do {
                    read = try await history.newRawEvents(matching: filter, after: cursor, upTo: target, limit: 200)
                } catch {
                    logger.warning("live feed: reading a client's gap failed: \(error)")
                    remove(key)
                    subscription.close()
                    return
                }
                // The read is of the client's matches only: before each, the client has every match up to the last sent.
                var sent = cursor
                for row in read.events {
                    let event = LiveEvent(row)
                    let taken = subscription.send(encoded: rewrite.map { event.frame(rewritingView: $0) } ?? event.bytes) {
                        LiveEvent.resyncNotice(after: sent, retryMilliseconds: limits.resyncRetryMilliseconds)
                    }
                    guard taken else {
                        state.withLock { $0.resyncs += 1 }
                        return remove(key)
                    }
                    sent = event.id
                }
                cursor = read.reached
            }
            switch join(key, at: cursor) {
            case .live, .gone: return
            case .further(let next): target = next
            }
        }
    }

    enum Join { case live, gone, further(Int64) }

    /// Makes the client live once it has read up to `cursor`: sends what was held for it. When too much arrived for
    /// it meanwhile, answers how far the gap now reaches.
    private func join(_ key: ObjectIdentifier, at cursor: Int64) -> Join {
        state.withLock { state -> Join in
            guard var client = state.clients[key] else { return .gone }
            if client.heldOverflowed {
                client.heldOverflowed = false
                client.held = []
                state.clients[key] = client
                return .further(state.cursor)
            }
            let held = client.held
            client.held = []
            client.catchingUp = false
            client.cursor = max(client.cursor, cursor)
            if client.offer(held, heldLimit: limits.held, retryMilliseconds: limits.resyncRetryMilliseconds) {
                state.clients[key] = client
            } else {
                state.clients[key] = nil
                state.resyncs += 1
            }
            return .live
        }
    }
}
