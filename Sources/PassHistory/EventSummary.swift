import AccessEnabler
import Foundation

extension EntitlementEvent {
    /// A one-line description for lists and text search, e.g. `callback setAuthenticationStatus(1)` or
    /// `GET …/config/REF30 → 200 (12 ms)`. Stored in the `summary` column; `LIKE` filters search it.
    public var summary: String {
        switch kind {
        case .apiCall(let name, let arguments):
            return "call \(name)(\(Self.list(arguments)))"
        case .stateChanged(let flow, let from, let to):
            return "\(flow): \(from) → \(to)"
        case .httpExchange(let exchange):
            let outcome = exchange.status.map(String.init) ?? "failed: \(exchange.failure ?? "no answer")"
            return "\(exchange.method) \(Self.shortURL(exchange.url)) → \(outcome) (\(Int(exchange.durationMs.rounded())) ms)"
        case .storageChanged(let domain, let change):
            return "storage \(domain): \(change)"
        case .callback(let callback):
            return "callback \(callback.name)(\(Self.arguments(of: callback)))"
        case .tracking(let event, let data):
            return "tracking \(event.rawValue) [\(data.joined(separator: ", "))]"
        case .error(let code, let message):
            return "error \(code): \(message)"
        }
    }

    /// The callback's main arguments, short.
    static func arguments(of callback: EntitlementCallback) -> String {
        switch callback {
        case .setRequestorComplete(let status): "\(status)"
        case .setAuthenticationStatus(let status, let errorCode):
            [String(status), errorCode].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ", ")
        case .displayProviderDialog(let mvpds): "\(mvpds.count) MVPDs"
        case .navigateToUrl(let url, _): shortURL(url)
        case .setToken(_, let resource): resource
        case .tokenRequestFailed(let resource, let errorCode, _): "\(resource), \(errorCode)"
        case .selectedProvider(let mvpd): mvpd?.ID ?? "none"
        case .sendTrackingData(let event, _): event.rawValue
        case .setMetadataStatus(_, _, let key, _): "\(key)"
        case .preauthorizedResources(let resources): resources.joined(separator: ", ")
        case .presentTvProviderDialog, .dismissTvProviderDialog: ""
        case .status(let dictionary): list(dictionary)
        }
    }

    /// `key=value` pairs in key order.
    static func list(_ arguments: [String: String]) -> String {
        arguments.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
    }

    /// The URL without scheme, host and query: `…/api/v1/config/REF30`.
    static func shortURL(_ url: String) -> String {
        guard let components = URLComponents(string: url), components.host != nil else { return url }
        return "…" + components.path
    }
}
