import AccessEnabler
import Foundation
import Locking
import PassProtocol

/// An app delegate that records every callback, in order, with its real arguments.
final class RecordingDelegate: EntitlementDelegate, EntitlementStatus, Sendable {
    private let recorded = Mutex<[EntitlementCallback]>([])

    var callbacks: [EntitlementCallback] { recorded.withLock { $0 } }
    var names: [String] { callbacks.map(\.name) }
    /// Callbacks without tracking and status, which most assertions skip.
    var main: [EntitlementCallback] {
        callbacks.filter { if case .sendTrackingData = $0 { false } else if case .status = $0 { false } else { true } }
    }
    var tracking: [(TrackingEvent, [String])] {
        callbacks.compactMap { if case .sendTrackingData(let event, let data) = $0 { (event, data) } else { nil } }
    }
    var statuses: [[String: String]] {
        callbacks.compactMap { if case .status(let dictionary) = $0 { dictionary } else { nil } }
    }

    func clear() { recorded.withLock { $0 = [] } }
    private func record(_ callback: EntitlementCallback) { recorded.withLock { $0.append(callback) } }

    /// The last `navigateToUrl` URL.
    var lastURL: String? {
        callbacks.reversed().lazy.compactMap { if case .navigateToUrl(let url, _) = $0 { url } else { nil } }.first
    }
    /// The last media token delivered by `setToken`.
    var lastToken: String? {
        callbacks.reversed().lazy.compactMap { if case .setToken(let token, _) = $0 { token } else { nil } }.first
    }

    func setRequestorComplete(_ status: Int) { record(.setRequestorComplete(status: status)) }
    func setAuthenticationStatus(_ status: Int, errorCode: String?) { record(.setAuthenticationStatus(status: status, errorCode: errorCode)) }
    func displayProviderDialog(_ mvpds: [MVPD]) { record(.displayProviderDialog(mvpds: mvpds)) }
    func navigateToUrl(_ url: String) { record(.navigateToUrl(url: url, useSVC: nil)) }
    func navigateToUrl(_ url: String, useSVC: Bool) { record(.navigateToUrl(url: url, useSVC: useSVC)) }
    func setToken(_ token: String, forResource resource: String) { record(.setToken(token: token, resource: resource)) }
    func tokenRequestFailed(_ resource: String, errorCode: String, errorDescription: String?) {
        record(.tokenRequestFailed(resource: resource, errorCode: errorCode, errorDescription: errorDescription))
    }
    func selectedProvider(_ mvpd: MVPD?) { record(.selectedProvider(mvpd: mvpd)) }
    func sendTrackingData(_ data: [String], forEventType event: TrackingEvent) { record(.sendTrackingData(event: event, data: data)) }
    func setMetadataStatus(_ metadata: JSONValue?, encrypted: Bool, forKey key: Int, andArguments arguments: [String: String]?) {
        record(.setMetadataStatus(metadata: metadata, encrypted: encrypted, key: key, arguments: arguments))
    }
    func preauthorizedResources(_ resources: [String]) { record(.preauthorizedResources(resources: resources)) }
    func presentTvProviderDialog() { record(.presentTvProviderDialog) }
    func dismissTvProviderDialog() { record(.dismissTvProviderDialog) }
    func status(_ statusDictionary: [String: String]) { record(.status(statusDictionary: statusDictionary)) }
}
