import Foundation
import PassProtocol

extension FlowOptions {
    /// What the app passes to `setOptions` before `setRequestor`; nil when nothing is set.
    var sdkOptions: [String: String]? {
        guard let visitorID else { return nil }
        return [PassConstants.OPTION_VISITOR_ID: visitorID]
    }
}
