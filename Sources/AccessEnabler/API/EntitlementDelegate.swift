import Foundation
import PassProtocol

/// Receives the results of ``AccessEnabler`` calls: the seeds' `EntitlementDelegate`, one method per callback.
///
/// Every method is called on the delegate queue given to ``AccessEnabler/init(configuration:delegate:statusDelegate:delegateQueue:logger:)``
/// (default: a serial queue standing for the main thread), never on the SDK's own queues, one callback at a time
/// and in the order the flows produce them. Methods the app does not need have default implementations that do
/// nothing.
public protocol EntitlementDelegate: AnyObject {
    /// `setRequestor` finished: ``PassConstants/ACCESS_ENABLER_STATUS_SUCCESS`` (1) or `_ERROR` (0). Called exactly
    /// once per `setRequestor`, after the calls queued meanwhile have run (spec §1.3).
    func setRequestorComplete(_ status: Int)
    /// Whether the user is authenticated for the current Programmer: `1` with `errorCode` `""`/`nil`, or `0` with the
    /// reason (``PassProtocol/ErrorCode``). Called once per `checkAuthentication`, at the end of `getAuthentication`,
    /// on cancel, and at the end of logout (status 0 means logout succeeded).
    func setAuthenticationStatus(_ status: Int, errorCode: String?)
    /// Show the MVPD picker with these providers, then call `setSelectedProvider`.
    func displayProviderDialog(_ mvpds: [MVPD])
    /// Load `url` in a web view and watch for the redirect URL (`adobepass://ios.app` or the app's scheme), then call
    /// `handleExternalURL`. Login and logout on iOS; never on tvOS.
    func navigateToUrl(_ url: String)
    /// As ``navigateToUrl(_:)``; called instead when the `handleSVC` option is on. `useSVC` says the MVPD requires an
    /// SFSafariViewController.
    func navigateToUrl(_ url: String, useSVC: Bool)
    /// A short media token for `resource` (never cached: one per `getAuthorization`/`checkAuthorization`).
    func setToken(_ token: String, forResource resource: String)
    /// Authorization failed. `errorCode` says whether it is an authentication, authorization or network problem;
    /// `errorDescription` may carry the MVPD's message.
    func tokenRequestFailed(_ resource: String, errorCode: String, errorDescription: String?)
    /// The current Programmer's selected MVPD, or `nil` (answer to `getSelectedProvider`).
    func selectedProvider(_ mvpd: MVPD?)
    /// Statistics (spec §4): the event type and its data items in the documented order.
    func sendTrackingData(_ data: [String], forEventType event: TrackingEvent)
    /// The answer to `getMetadata`: the value (the JSON value the backend sent: a user-metadata item may be a string,
    /// number, array or object; the expiries and the device ID are strings), whether it is encrypted for the
    /// Programmer, the op code, and the dictionary the app passed to `getMetadata`, exactly as passed (`nil`: none).
    func setMetadataStatus(_ metadata: JSONValue?, encrypted: Bool, forKey key: Int, andArguments arguments: [String: String]?)
    /// The subset of resources the user may view (answer to `checkPreauthorizedResources`).
    func preauthorizedResources(_ resources: [String])
    /// Apple SSO: present the system TV-provider picker.
    func presentTvProviderDialog()
    /// Apple SSO: the system picker was closed (cancel or "other provider").
    func dismissTvProviderDialog()
}

/// Empty defaults: an app implements only the callbacks it needs (the seeds' delegate has optional methods).
extension EntitlementDelegate {
    public func setRequestorComplete(_ status: Int) {}
    public func setAuthenticationStatus(_ status: Int, errorCode: String?) {}
    public func displayProviderDialog(_ mvpds: [MVPD]) {}
    public func navigateToUrl(_ url: String) {}
    public func navigateToUrl(_ url: String, useSVC: Bool) { navigateToUrl(url) }
    public func setToken(_ token: String, forResource resource: String) {}
    public func tokenRequestFailed(_ resource: String, errorCode: String, errorDescription: String?) {}
    public func selectedProvider(_ mvpd: MVPD?) {}
    public func sendTrackingData(_ data: [String], forEventType event: TrackingEvent) {}
    public func setMetadataStatus(_ metadata: JSONValue?, encrypted: Bool, forKey key: Int, andArguments arguments: [String: String]?) {}
    public func preauthorizedResources(_ resources: [String]) {}
    public func presentTvProviderDialog() {}
    public func dismissTvProviderDialog() {}
}

/// The advanced status channel (spec §2.2): `status(_:)` with `errorId` (and `id`), `level`, optional `message`.
/// Delivered on the delegate queue; order across several statuses is not guaranteed by the real SDK.
public protocol EntitlementStatus: AnyObject {
    /// An advanced status: e.g. `["errorId": "N001", "id": "N001", "level": "info", "message": …]`.
    func status(_ statusDictionary: [String: String])
}

extension EntitlementCallback {
    /// Calls the matching delegate method.
    func deliver(to delegate: (any EntitlementDelegate)?, status statusDelegate: (any EntitlementStatus)?, handleSVC: Bool) {
        switch self {
        case .setRequestorComplete(let status): delegate?.setRequestorComplete(status)
        case .setAuthenticationStatus(let status, let code): delegate?.setAuthenticationStatus(status, errorCode: code)
        case .displayProviderDialog(let mvpds): delegate?.displayProviderDialog(mvpds)
        case .navigateToUrl(let url, let useSVC):
            if let useSVC, handleSVC { delegate?.navigateToUrl(url, useSVC: useSVC) } else { delegate?.navigateToUrl(url) }
        case .setToken(let token, let resource): delegate?.setToken(token, forResource: resource)
        case .tokenRequestFailed(let resource, let code, let description):
            delegate?.tokenRequestFailed(resource, errorCode: code, errorDescription: description)
        case .selectedProvider(let mvpd): delegate?.selectedProvider(mvpd)
        case .sendTrackingData(let event, let data): delegate?.sendTrackingData(data, forEventType: event)
        case .setMetadataStatus(let metadata, let encrypted, let key, let arguments):
            delegate?.setMetadataStatus(metadata, encrypted: encrypted, forKey: key, andArguments: arguments)
        case .preauthorizedResources(let resources): delegate?.preauthorizedResources(resources)
        case .presentTvProviderDialog: delegate?.presentTvProviderDialog()
        case .dismissTvProviderDialog: delegate?.dismissTvProviderDialog()
        case .status(let dictionary): statusDelegate?.status(dictionary)
        }
    }
}
