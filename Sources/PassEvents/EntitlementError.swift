import Foundation
import PassProtocol

/// An error from an entitlement flow, thrown by the async API and carried as the error code of delegate callbacks.
public struct EntitlementError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, broadly: the seeds' error-code string the delegate receives.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The delegate's error-code string (e.g. `User Not Authenticated Error`).
        public let rawValue: String
        /// Whether the app should authenticate again, accept a denial, or retry.
        public let category: Category

        /// What the app should do about an error: authenticate again, accept a denial, retry, fix its setup, or nothing
        /// (the user cancelled).
        public enum Category: String, Sendable { case authentication, authorization, transport, configuration, cancelled }

        /// No valid authentication for this Programmer: authenticate again.
        public static let userNotAuthenticated = Code(rawValue: ErrorCode.userNotAuthenticated.rawValue, category: .authentication)
        /// Authentication failed for an undisclosed reason: authenticate again.
        public static let genericAuthentication = Code(rawValue: ErrorCode.genericAuthentication.rawValue, category: .authentication)
        /// The authentication service answered with an error: retry later.
        public static let internalAuthentication = Code(rawValue: ErrorCode.internalAuthentication.rawValue, category: .authentication)
        /// The authentication service did not answer: check the network, retry.
        public static let providerNotAvailable = Code(rawValue: ErrorCode.providerNotAvailable.rawValue, category: .transport)
        /// The user cancelled choosing or signing in with a provider.
        public static let providerNotSelected = Code(rawValue: ErrorCode.providerNotSelected.rawValue, category: .cancelled)
        /// The MVPD does not let this user watch the resource.
        public static let userNotAuthorized = Code(rawValue: ErrorCode.userNotAuthorized.rawValue, category: .authorization)
        /// The authorization service answered with an error: retry later.
        public static let internalAuthorization = Code(rawValue: ErrorCode.internalAuthorization.rawValue, category: .authorization)
        /// Authorization could not reach the service: retry.
        public static let genericAuthorization = Code(rawValue: ErrorCode.genericAuthorization.rawValue, category: .transport)
        /// `setRequestor` was not called or failed.
        public static let requestorNotSet = Code(rawValue: ErrorCode.internalError.rawValue, category: .configuration)
        /// The SDK is too old for the service.
        public static let apiTooOld = Code(rawValue: ErrorCode.serverAPITooOld.rawValue, category: .configuration)

        public var description: String { rawValue }
    }

    /// The error code the delegate receives, with its category.
    public var code: Code
    /// What happened and, where it helps, how to fix it.
    public var message: String
    /// The advanced status ID (spec §3.3), when one applies.
    public var advancedStatus: AdvancedStatusCode?

    /// An error with its code, message and, when one applies, advanced status.
    public init(_ code: Code, _ message: String, advancedStatus: AdvancedStatusCode? = nil) {
        self.code = code
        self.message = message
        self.advancedStatus = advancedStatus
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
