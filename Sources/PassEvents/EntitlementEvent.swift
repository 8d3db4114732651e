import Foundation

/// Everything the SDK does, as one `Codable` value: API calls, flow state changes, HTTP exchanges, storage changes,
/// delivered callbacks, tracking data and errors. Tests assert on these, the console records and shows them.
///
/// Events leave the SDK already redacted (token bodies and secrets shortened, see ``redacted()``).
public struct EntitlementEvent: Codable, Sendable, Equatable {
    /// Increases by one per event within one ``sessionID``.
    public var sequence: Int
    /// When it happened.
    public var timestamp: Date
    /// One app instance's run (one ``AccessEnabler``).
    public var sessionID: UUID
    /// The device ID the SDK computed for this app.
    public var deviceID: String
    /// The app that produced the event.
    public var app: AppIdentity
    /// The Programmer, once `setRequestor` named one.
    public var requestorID: String?
    /// The MVPD the event concerns, when known.
    public var mvpdID: String?
    /// What happened.
    public var kind: Kind

    /// Creates an event (the SDK core emits these; tests and PassHistory build them too).
    public init(
        sequence: Int, timestamp: Date, sessionID: UUID, deviceID: String, app: AppIdentity, requestorID: String?,
        mvpdID: String?, kind: Kind
    ) {
        self.sequence = sequence
        self.timestamp = timestamp
        self.sessionID = sessionID
        self.deviceID = deviceID
        self.app = app
        self.requestorID = requestorID
        self.mvpdID = mvpdID
        self.kind = kind
    }

    /// What happened.
    public enum Kind: Codable, Sendable, Equatable {
        /// The app called an API method. On the wire the method is `name` (`{"apiCall":{"arguments":…,"name":…}}`).
        case apiCall(method: APIMethod, arguments: [String: String])
        /// A flow's state machine moved.
        case stateChanged(flow: FlowKind, from: FlowState, to: FlowState)
        /// One HTTP request and its answer (or failure).
        case httpExchange(exchange: HTTPExchange)
        /// Token storage changed: which domain file, what changed.
        case storageChanged(domain: String, change: String)
        /// A delegate callback was delivered.
        case callback(callback: EntitlementCallback)
        /// `sendTrackingData` (also a callback; recorded apart so the console can list tracking on its own).
        case tracking(event: TrackingEvent, data: [String])
        /// Something failed; `code` is the delegate error code or advanced status.
        case error(code: String, message: String)

        /// The wire keeps the name it has always had: `name`.
        enum ApiCallCodingKeys: String, CodingKey {
            case method = "name"
            case arguments
        }

        /// An API call named as on the wire (an event from another reporter, a test, a benchmark); the SDK itself
        /// emits the typed case. A name this build does not know is kept as ``APIMethod/other(_:)``.
        public static func apiCall(name: String, arguments: [String: String]) -> Kind {
            .apiCall(method: APIMethod(rawValue: name), arguments: arguments)
        }

        /// A state change named as on the wire (see ``apiCall(name:arguments:)``); unknown text is kept as
        /// ``FlowKind/other(_:)`` / ``FlowState/other(_:)``.
        public static func stateChanged(flow: String, from: String, to: String) -> Kind {
            .stateChanged(flow: FlowKind(rawValue: flow), from: FlowState(rawValue: from), to: FlowState(rawValue: to))
        }
    }
}

/// One HTTP exchange of the SDK with the backend.
public struct HTTPExchange: Codable, Sendable, Equatable {
    /// The HTTP method (`GET`, `POST`).
    public var method: String
    /// The URL requested, query included (redacted).
    public var url: String
    /// Form or query parameters sent (redacted).
    public var parameters: [String: String]
    /// Request headers the SDK added (visitor ID, device info, authorization — redacted).
    public var headers: [String: String] = [:]
    /// Status code, or nil when no answer came.
    public var status: Int?
    /// The answer body (redacted, truncated).
    public var responseBody: String?
    /// Why no answer came (timeout, refused), if so.
    public var failure: String?
    /// Duration in milliseconds.
    public var durationMs: Double
    /// The server's clock when it answered (its `Date` header), to compare with the device's clock.
    public var serverDate: Date?
    /// The backend's `Authzf-Error-Code` header: which of its checks refused the call (`token_requestor_mismatch`,
    /// `session_revoked`, … see PassProtocol's `TokenRejection`), so the console names the rule, not a guess.
    public var errorCode: String?
    /// What the server that recorded the exchange knew of it (``ServedFacts``); `nil` for an SDK's own record.
    public var served: ServedFacts?

    /// An exchange as the SDK's transport records it (values already redacted), or as a server recorded it (`served`).
    public init(
        method: String, url: String, parameters: [String: String], headers: [String: String] = [:], status: Int?,
        responseBody: String?, failure: String?, durationMs: Double, serverDate: Date? = nil, errorCode: String? = nil,
        served: ServedFacts? = nil
    ) {
        self.method = method
        self.url = url
        self.parameters = parameters
        self.headers = headers
        self.status = status
        self.responseBody = responseBody
        self.failure = failure
        self.durationMs = durationMs
        self.serverDate = serverDate
        self.errorCode = errorCode
        self.served = served
    }
}
