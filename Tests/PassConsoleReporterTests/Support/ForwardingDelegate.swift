import AccessEnabler
import Foundation
import Locking
import PassConsoleReporter
import PassProtocol

/// An app's delegate as the documentation shows it: each callback forwarded to the reporter in one line, then
/// handled as the app always did (here: recorded, in order, with its real arguments).
final class ForwardingDelegate: EntitlementDelegate, EntitlementStatus, Sendable {
    let reporter: ConsoleReporter
    private let recorded = Mutex<[EntitlementCallback]>([])

    init(reporter: ConsoleReporter) { self.reporter = reporter }

    var callbacks: [EntitlementCallback] { recorded.withLock { $0 } }
    private func record(_ callback: EntitlementCallback) { recorded.withLock { $0.append(callback) } }

    func setRequestorComplete(_ status: Int) {
        reporter.callback(.setRequestorComplete(status: status))
        record(.setRequestorComplete(status: status))
    }

    func setAuthenticationStatus(_ status: Int, errorCode: String?) {
        reporter.callback(.setAuthenticationStatus(status: status, errorCode: errorCode))
        record(.setAuthenticationStatus(status: status, errorCode: errorCode))
    }

    func displayProviderDialog(_ mvpds: [MVPD]) {
        reporter.callback(.displayProviderDialog(mvpds: mvpds))
        record(.displayProviderDialog(mvpds: mvpds))
    }

    func navigateToUrl(_ url: String) {
        reporter.callback(.navigateToUrl(url: url))
        record(.navigateToUrl(url: url, useSVC: nil))
    }

    func navigateToUrl(_ url: String, useSVC: Bool) {
        reporter.callback(.navigateToUrl(url: url, useSVC: useSVC))
        record(.navigateToUrl(url: url, useSVC: useSVC))
    }

    func setToken(_ token: String, forResource resource: String) {
        reporter.callback(.setToken(token: token, resource: resource))
        record(.setToken(token: token, resource: resource))
    }

    func tokenRequestFailed(_ resource: String, errorCode: String, errorDescription: String?) {
        reporter.callback(.tokenRequestFailed(resource: resource, errorCode: errorCode, errorDescription: errorDescription))
        record(.tokenRequestFailed(resource: resource, errorCode: errorCode, errorDescription: errorDescription))
    }

    func selectedProvider(_ mvpd: MVPD?) {
        reporter.callback(.selectedProvider(mvpd: mvpd))
        record(.selectedProvider(mvpd: mvpd))
    }

    func sendTrackingData(_ data: [String], forEventType event: TrackingEvent) {
        reporter.callback(.sendTrackingData(event: event.code, data: data))
        record(.sendTrackingData(event: event, data: data))
    }

    func setMetadataStatus(_ metadata: JSONValue?, encrypted: Bool, forKey key: Int, andArguments arguments: [String: String]?) {
        reporter.callback(.setMetadataStatus(metadata: metadata, encrypted: encrypted, key: key, arguments: arguments))
        record(.setMetadataStatus(metadata: metadata, encrypted: encrypted, key: key, arguments: arguments))
    }

    func preauthorizedResources(_ resources: [String]) {
        reporter.callback(.preauthorizedResources(resources: resources))
        record(.preauthorizedResources(resources: resources))
    }

    func presentTvProviderDialog() {
        reporter.callback(.presentTvProviderDialog)
        record(.presentTvProviderDialog)
    }

    func dismissTvProviderDialog() {
        reporter.callback(.dismissTvProviderDialog)
        record(.dismissTvProviderDialog)
    }

    func status(_ statusDictionary: [String: String]) {
        reporter.callback(.status(statusDictionary: statusDictionary))
        record(.status(statusDictionary: statusDictionary))
    }
}
