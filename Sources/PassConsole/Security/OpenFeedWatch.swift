import Locking
import MicroHTTP

/// The live feeds open now, each with who opened it, judged again at every refresh of the operators
/// (``OperatorDirectory``, every second by default): a feed whose operator was revoked, whose role or name changed,
/// or that the door can no longer judge (the history unreadable past the directory's stale limit, or operators added
/// to a console that had none) is closed. The page's reconnect is then judged as any request is: `401 token_revoked`,
/// or the feed the new role sees (a viewer's is redacted). Without this, a revoked operator's open feed kept
/// streaming, unredacted for an operator (issue #27 item 12).
final class OpenFeedWatch: Sendable {
    struct Feed: Sendable {
        let request: Request
        let identity: ConsoleIdentity
        let subscription: EventStreamSubscription
    }

    private let feeds = Mutex<[ObjectIdentifier: Feed]>([:])

    /// Watches `subscription`, opened by `request` as `identity`, until it finishes.
    func watch(_ subscription: EventStreamSubscription, request: Request, identity: ConsoleIdentity) {
        feeds.withLock { $0[ObjectIdentifier(subscription)] = Feed(request: request, identity: identity, subscription: subscription) }
    }

    /// How many feeds are watched (finished ones are dropped at the next ``rejudge(_:)``).
    var count: Int { feeds.withLock { $0.count } }

    /// Judges every open feed's request again with `judge` (the door: the identity it passes as, or `nil` when it
    /// refuses) and closes each that no longer passes as it did. Returns how many it closed.
    @discardableResult
    func rejudge(_ judge: (Request) -> ConsoleIdentity?) -> Int {
        let open = feeds.withLock { feeds in
            feeds = feeds.filter { !$0.value.subscription.isFinished }
            return Array(feeds.values)
        }
        var closed = 0
        for feed in open where judge(feed.request) != feed.identity {
            feed.subscription.close()
            feeds.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(feed.subscription)) }
            closed += 1
        }
        return closed
    }
}
