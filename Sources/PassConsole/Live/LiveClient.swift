import Foundation
import MicroHTTP
import PassHistory

/// One client of the ``LiveFeed``: its filter, its stream, and how far it has got. Only changed under the feed's
/// lock, so the order of what it is sent is the order the feed publishes in.
struct LiveClient {
    let filter: HistoryFilter
    let subscription: EventStreamSubscription
    /// Rewrites each event's view before it is sent (a viewer's stream: personal data redacted); `nil` sends the
    /// shared bytes as they are.
    let rewrite: (@Sendable (String) -> String)?
    /// Every event up to this ID was queued for the client or does not match its filter.
    var cursor: Int64
    /// True while the client reads its gap from the history (a resume): published events wait in `held`.
    var catchingUp: Bool
    /// Matching events published while catching up, oldest first (at most the feed's limit).
    var held: [LiveEvent] = []
    /// True when more than the limit arrived while catching up: `held` was dropped and the gap grows to the feed's
    /// position (the catch-up reads further).
    var heldOverflowed = false

    /// Takes `events` (published in ID order) for the client. False when its buffer is full: it was sent the resync
    /// notice, its stream ends after it, and the feed forgets it.
    mutating func offer(_ events: some Sequence<LiveEvent>, heldLimit: Int, retryMilliseconds: Int) -> Bool {
        for event in events where event.id > cursor {
            if catchingUp {
                guard !heldOverflowed, filter.matches(event.facts) else { continue }
                if held.count < heldLimit {
                    held.append(event)
                } else {
                    held = []
                    heldOverflowed = true
                }
                continue
            }
            if filter.matches(event.facts) {
                let cursor = self.cursor
                let taken = subscription.send(encoded: rewrite.map { event.frame(rewritingView: $0) } ?? event.bytes) {
                    LiveEvent.resyncNotice(after: cursor, retryMilliseconds: retryMilliseconds)
                }
                guard taken else { return false }
            }
            cursor = event.id
        }
        return true
    }
}
