import Foundation
import PassProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which failed HTTP calls the SDK sends again, and how often: up to `HTTP_RETRY_LIMIT` more times (spec §3.6, "one
/// retry per call"), for failures a second try can cure.
///
/// Retryable: no answer because the connection could not be made or was lost (refused, reset, host not found), and
/// the gateway answers `502`, `503`, `504` (the service or a proxy in front of it is failing for a moment). Not
/// retried: a timeout (the service may still be working on it, and the app configured how long a call may take), a
/// cancelled call, `429` (throttling: a retry at once only adds to the load), and every other answer (`4xx` are
/// decisions; a `500` or an unreadable answer would come back the same).
///
/// ```swift
/// let policy = RetryPolicy(limit: PassConstants.HTTP_RETRY_LIMIT)
/// policy.shouldRetry(status: 503, attempt: 1)  // true: the first retry
/// policy.shouldRetry(status: 503, attempt: 2)  // false: the limit is spent
/// ```
public struct RetryPolicy: Sendable, Equatable {
    /// Retries after the first try (`HTTP_RETRY_LIMIT` by default); `0` sends every call once.
    public var limit: Int
    /// The pause before a retry.
    public var delay: Duration

    /// The seeds' policy: `HTTP_RETRY_LIMIT` retries, a short pause before each.
    public init(limit: Int = PassConstants.HTTP_RETRY_LIMIT, delay: Duration = .milliseconds(100)) {
        self.limit = max(0, limit)
        self.delay = delay
    }

    /// The statuses a retry may cure.
    public static let retryableStatuses: Set<Int> = [502, 503, 504]

    /// Whether a call that got `status` on try number `attempt` (1 for the first) is sent again.
    public func shouldRetry(status: Int, attempt: Int) -> Bool {
        attempt <= limit && Self.retryableStatuses.contains(status)
    }

    /// Whether a call that got no answer (`error`) on try number `attempt` is sent again.
    public func shouldRetry(error: any Error, attempt: Int) -> Bool {
        shouldRetry(errorDomain: (error as NSError).domain, code: (error as NSError).code, attempt: attempt)
    }

    /// Whether a call that got no answer, with the error of this domain and code, on try number `attempt` is sent
    /// again: every URL-loading failure but a timeout or a cancel.
    public func shouldRetry(errorDomain: String, code: Int, attempt: Int) -> Bool {
        guard attempt <= limit else { return false }
        return errorDomain != NSURLErrorDomain || (code != NSURLErrorTimedOut && code != NSURLErrorCancelled)
    }
}
