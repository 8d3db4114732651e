import PassEvents
import Foundation
import PassProtocol

/// Where a session search found its text: the things a support ticket names.
public enum SessionField: String, Codable, Sendable, CaseIterable, Comparable {
    /// The MVPD username (known to the backend that signed the user in, not to the SDK: see ``SessionAlias``).
    case username
    /// The user ID as the Tokens page shows it: the authentication token's GUID, sent by the SDK as `session_guid`.
    case userID
    /// The MD5 of the user ID that `sendTrackingData` reports.
    case trackingHash
    /// The visitor ID the app set with `setOptions` (sent as `AP-Visitor-Identifier`).
    case visitorID
    /// A second-screen registration code the device showed (recorded by the backend or a proxy).
    case registrationCode
    case deviceID
    /// The session's own ID.
    case session
    /// The app: its bundle ID (any dot-separated part of it), or its name where the console knows it.
    case app
    case programmer
    case mvpd

    /// The words a result shows beside the match.
    public var label: String {
        switch self {
        case .username: "username"
        case .userID: "user ID"
        case .trackingHash: "tracking hash"
        case .visitorID: "visitor ID"
        case .registrationCode: "registration code"
        case .deviceID: "device ID"
        case .session: "session ID"
        case .app: "app"
        case .programmer: "Programmer"
        case .mvpd: "MVPD"
        }
    }

    /// Ordered by how surely they name one customer: a result names its most specific match.
    public static func < (a: SessionField, b: SessionField) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// A value a session can be found by, as the search index (`session_term`) holds it.
package struct SessionTerm: Hashable, Sendable {
    package var field: SessionField
    /// As recorded.
    package var value: String

    /// The lowercased texts a prefix search compares with, each with where in ``value`` it starts (in characters):
    /// the whole value, and for an app each part after a dot (`news` finds `com.example.news.ios`).
    package var searchable: [(term: String, offset: Int)] {
        var result = [(SessionSearch.fold(value), 0)]
        guard field == .app else { return result }
        for (offset, character) in value.enumerated() where character == "." && offset + 1 < value.count {
            result.append((SessionSearch.fold(String(value.dropFirst(offset + 1))), offset + 1))
        }
        return result
    }

    /// The terms of a session row: its ID, device and app.
    package static func ofSession(id: UUID, deviceID: String, bundleID: String) -> [SessionTerm] {
        [SessionTerm(field: .session, value: id.uuidString), SessionTerm(field: .deviceID, value: deviceID),
         SessionTerm(field: .app, value: bundleID)]
    }
}

extension EntitlementEvent {
    /// The user identities this event names: the user ID the SDK sends (`session_guid`), the tracking hash it
    /// reports, the visitor ID the app set (its Programmer and MVPD are indexed from its own fields). Computed for every
    /// stored event: most name none, and then it allocates nothing.
    var identityTerms: [SessionTerm] {
        var terms: [SessionTerm] = []
        switch kind {
        case .httpExchange(let exchange):
            if let served = exchange.served {
                // What the server knew: the user it signed in, the username typed at the MVPD, the code shown.
                if let user = served.userID, !user.isEmpty { terms.append(SessionTerm(field: .userID, value: user)) }
                if let name = served.username, !name.isEmpty { terms.append(SessionTerm(field: .username, value: name)) }
                if let code = served.registrationCode, !code.isEmpty {
                    terms.append(SessionTerm(field: .registrationCode, value: code))
                }
            }
            if let guid = exchange.parameters["session_guid"], !guid.isEmpty {
                terms.append(SessionTerm(field: .userID, value: guid))
            }
            // The SDK's own spelling of the header (EntitlementEngine): no case-folding lookup on every exchange.
            if let visitor = exchange.headers[PassConstants.HEADER_VISITOR_ID], !visitor.isEmpty {
                terms.append(SessionTerm(field: .visitorID, value: visitor))
            }
        case .apiCall(.setOptions, let arguments):
            if let visitor = arguments[PassConstants.OPTION_VISITOR_ID], !visitor.isEmpty {
                terms.append(SessionTerm(field: .visitorID, value: visitor))
            }
        case .tracking(.authenticationDetection, let data), .tracking(.authorizationDetection, let data):
            // The documented order (spec §4): success, MVPD, hashed GUID, … ("None" when absent).
            if data.count > 2, data[0] == Tracking.TRACKING_YES, data[2] != Tracking.TRACKING_NONE, !data[2].isEmpty {
                terms.append(SessionTerm(field: .trackingHash, value: data[2]))
            }
        default: break
        }
        return terms
    }
}
