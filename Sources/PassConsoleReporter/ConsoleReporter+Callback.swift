import Foundation

extension ConsoleReporter {
    /// One delegate callback as the console records it, made by the factory named like the callback (the seeds'
    /// callback and parameter names): `reporter.callback(.setToken(token: token, resource: resource))`.
    ///
    /// The factories take what the vendor SDK hands its delegate as it is — its `MVPD` objects, `[Any]` tracking data,
    /// an `Any` metadata value, `NSDictionary` arguments — so each delegate method forwards in one line.
    public struct Callback: Sendable {
        /// The seed's callback name, e.g. `setAuthenticationStatus`.
        public let name: String
        /// The callback's arguments as the wire names them (besides `callback`, its name).
        let arguments: [String: WireJSON]
        /// Arguments that are secrets (shortened unless redaction is off).
        var secrets: Set<String> = []
        /// `sendTrackingData`: also a `tracking` event, as the SDK records it.
        var tracking: (event: String, data: [String])?
        /// `selectedProvider`: the MVPD later events are tagged with (`.some(nil)`: none).
        var selectedMVPD: String??
        /// Set when what the app handed over cannot be a callback the console reads (an unknown tracking event type):
        /// the reporter records it as an `error` event instead, so it is seen rather than refused.
        var problem: String?

        init(_ name: String, _ arguments: [String: WireJSON] = [:]) {
            self.name = name
            self.arguments = arguments
        }

        /// `setRequestorComplete`: 1 success, 0 error.
        public static func setRequestorComplete(status: Int) -> Callback {
            Callback("setRequestorComplete", ["status": .int(status)])
        }

        /// `setAuthenticationStatus`: 1 authenticated, or 0 with the error code.
        public static func setAuthenticationStatus(status: Int, errorCode: String?) -> Callback {
            Callback("setAuthenticationStatus", ["status": .int(status), "errorCode": .optional(errorCode)])
        }

        /// `displayProviderDialog` with the SDK's MVPD objects (or ``Provider`` values).
        public static func displayProviderDialog(mvpds: [Any]) -> Callback {
            Callback("displayProviderDialog", ["mvpds": .array(mvpds.map { Provider(describing: $0).json })])
        }

        /// `navigateToUrl`; `useSVC` when the SDK called the `useSVC:` variant.
        public static func navigateToUrl(url: String, useSVC: Bool? = nil) -> Callback {
            var arguments: [String: WireJSON] = ["url": .string(url)]
            if let useSVC { arguments["useSVC"] = .bool(useSVC) }
            return Callback("navigateToUrl", arguments)
        }

        /// `setToken`: the short media token for `resource` (a secret: only its prefix is sent unless redaction is off).
        public static func setToken(token: String, resource: String) -> Callback {
            var callback = Callback("setToken", ["token": .string(token), "resource": .string(resource)])
            callback.secrets = ["token"]
            return callback
        }

        /// `tokenRequestFailed`.
        public static func tokenRequestFailed(resource: String, errorCode: String, errorDescription: String?) -> Callback {
            Callback("tokenRequestFailed", [
                "resource": .string(resource), "errorCode": .string(errorCode), "errorDescription": .optional(errorDescription),
            ])
        }

        /// `selectedProvider` with the SDK's MVPD object, or nil; later events are tagged with its ID.
        public static func selectedProvider(mvpd: Any?) -> Callback {
            let provider = mvpd.map { Provider(describing: $0) }
            var callback = Callback("selectedProvider", ["mvpd": provider?.json ?? .null])
            callback.selectedMVPD = .some(provider?.id)
            return callback
        }

        /// `sendTrackingData` with the event type's integer constant (`TRACKING_AUTHENTICATION` 0,
        /// `TRACKING_AUTHORIZATION` 1, `TRACKING_MVPD_SELECTION` 2) and the data items as given.
        public static func sendTrackingData(event: some BinaryInteger, data: [Any]) -> Callback {
            guard let known = Int(exactly: event).flatMap(TrackingEvent.init(code:)) else {
                var callback = Callback("sendTrackingData")
                callback.problem = "sendTrackingData with an event type the console does not know (\(event)): "
                    + data.map(Self.text).joined(separator: ", ")
                return callback
            }
            return sendTrackingData(event: known, data: data)
        }

        /// `sendTrackingData` with the event type by name.
        public static func sendTrackingData(event: TrackingEvent, data: [Any]) -> Callback {
            let items = data.map(Self.text)
            var callback = Callback("sendTrackingData", ["event": .string(event.rawValue), "data": .array(items.map(WireJSON.string))])
            callback.tracking = (event.rawValue, items)
            return callback
        }

        /// `setMetadataStatus`: the value as the SDK handed it (a string, number, array, dictionary or nil), whether it
        /// is encrypted, the op code, and the arguments passed to `getMetadata`.
        public static func setMetadataStatus(metadata: Any?, encrypted: Bool, key: Int, arguments: [AnyHashable: Any]?) -> Callback {
            Callback("setMetadataStatus", [
                "metadata": WireJSON(any: metadata), "encrypted": .bool(encrypted), "key": .int(key),
                "arguments": arguments.map { .object(Self.strings($0).mapValues(WireJSON.string)) } ?? .null,
            ])
        }

        /// `preauthorizedResources`: the resources the user may view.
        public static func preauthorizedResources(resources: [String]) -> Callback {
            Callback("preauthorizedResources", ["resources": .array(resources.map(WireJSON.string))])
        }

        /// `presentTvProviderDialog` (Apple SSO's picker opens).
        public static var presentTvProviderDialog: Callback { Callback("presentTvProviderDialog") }

        /// `dismissTvProviderDialog` (Apple SSO's picker closed).
        public static var dismissTvProviderDialog: Callback { Callback("dismissTvProviderDialog") }

        /// The status delegate's `status` (advanced status: `errorId`, `level`, `message`, …).
        public static func status(statusDictionary: [AnyHashable: Any]) -> Callback {
            Callback("status", ["statusDictionary": .object(strings(statusDictionary).mapValues(WireJSON.string))])
        }

        /// A value as text: a string as it is, anything else as its description.
        static func text(_ value: Any) -> String {
            switch WireJSON(any: value) {
            case .string(let text): text
            case .null: "None"
            case let other: other.text
            }
        }

        /// A dictionary from the SDK (`NSDictionary`) with string keys and values.
        static func strings(_ dictionary: [AnyHashable: Any]) -> [String: String] {
            Dictionary(dictionary.map { (WireJSON.key($0.key), text($0.value)) }) { first, _ in first }
        }
    }

    /// The event types of `sendTrackingData`, by the names the console uses.
    public enum TrackingEvent: String, Sendable, CaseIterable {
        case authenticationDetection
        case authorizationDetection
        case mvpdSelection

        /// The iOS integer constant: 0, 1, 2.
        public init?(code: Int) {
            switch code {
            case 0: self = .authenticationDetection
            case 1: self = .authorizationDetection
            case 2: self = .mvpdSelection
            default: return nil
            }
        }
    }
}
