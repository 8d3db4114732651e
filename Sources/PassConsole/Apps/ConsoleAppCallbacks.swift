import AccessEnabler
import Foundation
import Locking
import PassProtocol

/// The latest callbacks of a console app, newest first, as the page's card lists them. Callbacks arrive on the SDK's
/// delegate queue; the page reads from any thread.
final class ConsoleAppCallbacks: Sendable {
    private let lines = Mutex<[AppView.CallbackLine]>([])
    private let limit = 20

    /// The kept lines, newest first.
    var recent: [AppView.CallbackLine] { lines.withLock { $0 } }

    /// Keeps `callback` with its one-line summary.
    func record(_ callback: EntitlementCallback) {
        let line = AppView.CallbackLine(name: callback.name, summary: Self.summary(callback), at: Date())
        lines.withLock { lines in
            lines.insert(line, at: 0)
            if lines.count > limit { lines.removeLast(lines.count - limit) }
        }
    }

    /// What the card shows beside the callback's name.
    static func summary(_ callback: EntitlementCallback) -> String {
        switch callback {
        case .setRequestorComplete(let status): "status \(status)"
        case .setAuthenticationStatus(let status, let errorCode):
            "status \(status)" + (errorCode.flatMap { $0.isEmpty ? nil : ", \($0)" } ?? "")
        case .displayProviderDialog(let mvpds): mvpds.map(\.ID).joined(separator: ", ")
        case .navigateToUrl(let url, _): url
        case .setToken(let token, let resource): "\(resource): media token \(TokenJudge.preview(token))"
        case .tokenRequestFailed(let resource, let errorCode, let errorDescription):
            "\(resource): \(errorCode)" + (errorDescription.map { " — \($0)" } ?? "")
        case .selectedProvider(let mvpd): mvpd?.ID ?? "none"
        case .sendTrackingData(let event, let data): "\(event.rawValue) [\(data.joined(separator: ", "))]"
        case .setMetadataStatus(let metadata, _, let key, _): "key \(key): \(metadata.map(\.compactText) ?? "nil")"
        case .preauthorizedResources(let resources): resources.isEmpty ? "none" : resources.joined(separator: ", ")
        case .presentTvProviderDialog, .dismissTvProviderDialog: ""
        case .status(let statusDictionary):
            statusDictionary.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
        }
    }
}
