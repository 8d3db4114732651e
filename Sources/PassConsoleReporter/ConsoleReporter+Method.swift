extension ConsoleReporter {
    /// An AccessEnabler API method, by the name the seeds (and the console) give it: `reporter.call(.getAuthorization,
    /// ["resource": resource])`. A name not listed here is written as it is (`"someNewMethod"` as a string literal).
    public struct Method: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        /// The name on the wire.
        public let rawValue: String

        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral name: String) { self.rawValue = name }
        public var description: String { rawValue }

        /// Arguments: `requestorID` (the reporter then tags every event with it), `serviceProviders`.
        public static let setRequestor: Method = "setRequestor"
        /// Arguments: the options as given.
        public static let setOptions: Method = "setOptions"
        public static let checkAuthentication: Method = "checkAuthentication"
        /// Arguments: `forceAuthn` and the data passed.
        public static let getAuthentication: Method = "getAuthentication"
        /// Arguments: `resource`.
        public static let checkAuthorization: Method = "checkAuthorization"
        /// Arguments: `resource`.
        public static let getAuthorization: Method = "getAuthorization"
        /// Arguments: `resources` (an array is written comma-separated).
        public static let checkPreauthorizedResources: Method = "checkPreauthorizedResources"
        /// Arguments: the keys dictionary passed (the op code under `opCode`).
        public static let getMetadata: Method = "getMetadata"
        /// Arguments: `mvpd` (the reporter then tags events with it; `nil` clears it).
        public static let setSelectedProvider: Method = "setSelectedProvider"
        public static let getSelectedProvider: Method = "getSelectedProvider"
        /// Arguments: `url`.
        public static let handleExternalURL: Method = "handleExternalURL"
        public static let logout: Method = "logout"

        /// The seeds' methods, in their order.
        public static let known: [Method] = [
            .setRequestor, .setOptions, .checkAuthentication, .getAuthentication, .checkAuthorization, .getAuthorization,
            .checkPreauthorizedResources, .getMetadata, .setSelectedProvider, .getSelectedProvider, .handleExternalURL,
            .logout,
        ]
    }
}
