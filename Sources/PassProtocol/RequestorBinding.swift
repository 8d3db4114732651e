/// The rule for which Programmer may present an authentication token, shared by the backend (it checks tokens with
/// it), the SDK (its silent SSO copy takes only tokens this rule accepts) and the console (it predicts and judges
/// with it).
///
/// An MVPD **without** "Authentication per Requestor" (`authPerRequestor: false`, wire `authPerAggregator`) signs the
/// user in once for every Programmer that integrates it: the token issued at sign-in under one Programmer is valid for
/// every other Programmer on the same device and storage (seed 002, "Authentication Token", 1.6 and older: "a single
/// authentication token … shared between all applications that are integrated with the current MVPD"; 1.7 keeps
/// that promise with per-Programmer buckets and the silent SSO copy, spec §8.4). An MVPD **with** it binds the token
/// to the Programmer that obtained it; another Programmer gets one of its own by passive authentication or a new
/// sign-in (spec §8.4, §8.5).
///
/// Whether the presenting Programmer integrates the MVPD at all is a separate rule
/// (``TokenRejection/mvpdNotIntegrated(mvpd:requestor:)``).
///
/// ```swift
/// RequestorBinding.accepts(tokenIssuedTo: "REF30", presentedBy: "SPORTS1", authnPerRequestor: false)  // true: SSO
/// RequestorBinding.accepts(tokenIssuedTo: "REF30", presentedBy: "SPORTS1", authnPerRequestor: true)   // false
/// ```
public enum RequestorBinding {
    /// Whether a token issued to `issuedTo` may be presented by `presentedBy`.
    ///
    /// - Parameter authnPerRequestor: the token's MVPD has Authentication per Requestor.
    public static func accepts(tokenIssuedTo issuedTo: String, presentedBy: String, authnPerRequestor: Bool) -> Bool {
        issuedTo == presentedBy || !authnPerRequestor
    }

    /// The ``TokenRejection/code`` of a refusal by this rule.
    public static let rejectionCode = "token_requestor_mismatch"
}
