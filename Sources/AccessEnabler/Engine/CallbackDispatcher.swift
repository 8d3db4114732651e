import Foundation
import Locking

/// Delivers callbacks to the app's delegates on the delegate queue, in order, never on the SDK's own executors.
final class CallbackDispatcher: @unchecked Sendable {
    // The delegates are only touched on `queue`; the weak references are set once at init.
    private weak var delegate: (any EntitlementDelegate)?
    private weak var statusDelegate: (any EntitlementStatus)?
    private let queue: DispatchQueue
    /// The `handleSVC` option: `navigateToUrl(_:useSVC:)` instead of `navigateToUrl(_:)`.
    let handleSVC = Mutex(false)

    init(delegate: (any EntitlementDelegate)?, statusDelegate: (any EntitlementStatus)?, queue: DispatchQueue) {
        self.delegate = delegate
        self.statusDelegate = statusDelegate
        self.queue = queue
    }

    func deliver(_ callback: EntitlementCallback) {
        let handleSVC = handleSVC.withLock { $0 }
        queue.async { callback.deliver(to: self.delegate, status: self.statusDelegate, handleSVC: handleSVC) }
    }

    /// Waits until every callback dispatched so far has run.
    func drain() async {
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    }
}
