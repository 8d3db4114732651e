import Foundation
import MicroHTTP
import PassProtocol

/// A visitor ID the backend received (`AP-Visitor-Identifier`, the app's `OPTION_VISITOR_ID`): with which sign-in or
/// authorization, so the analytics of a visitor correlate with the entitlement events (the cookbook's visitor ID
/// section: "the Adobe Pass Authentication server records this information").
public struct VisitorRecord: Codable, Sendable, Equatable {
    /// What the request was.
    public enum Event: String, Codable, Sendable {
        /// The device fetched its authentication token (`sessionDevice`): the sign-in reached the app.
        case signIn
        /// The device got an authorization token for ``VisitorRecord/resource`` (`authorizeDevice`).
        case authorization
    }

    /// The visitor ID, as received.
    public var visitorID: String
    public var event: Event
    public var requestorID: String
    public var mvpdID: String
    public var deviceID: String
    /// The session's GUID: the user ID the Tokens page and the console's session search show.
    public var userID: String
    /// The resource authorized (``Event/authorization`` only).
    public var resource: String?
    public var time: Date
}

extension BackendService {
    /// How many visitor records the backend keeps (oldest dropped first).
    static let keptVisitorRecords = 1000

    /// Records the request's visitor ID — the `AP-Visitor-Identifier` header (iOS SDK, REST v2), else `ap_vi` as a
    /// parameter or header (Android, browsers) — if it follows ``VisitorID``'s rule (others are ignored: the record is
    /// for analytics and must not refuse a sign-in).
    func recordVisitor(_ request: Request, _ event: VisitorRecord.Event, session: AuthSession, resource: String? = nil) {
        let sent = request.header(PassConstants.HEADER_VISITOR_ID) ?? request.parameter(PassConstants.PARAMETER_VISITOR_ID)
            ?? request.header(PassConstants.PARAMETER_VISITOR_ID)
        guard let visitorID = sent, VisitorID.problem(visitorID) == nil else { return }
        let record = VisitorRecord(
            visitorID: visitorID, event: event, requestorID: session.requestorID, mvpdID: session.mvpdID,
            deviceID: session.deviceID, userID: session.guid, resource: resource, time: now())
        state.withLock { state in
            state.visitors.append(record)
            if state.visitors.count > Self.keptVisitorRecords { state.visitors.removeFirst(state.visitors.count - Self.keptVisitorRecords) }
        }
    }

    /// Every visitor record kept, oldest first (`GET /admin/visitors`).
    public var visitorRecords: [VisitorRecord] { state.withLock { $0.visitors } }
}
