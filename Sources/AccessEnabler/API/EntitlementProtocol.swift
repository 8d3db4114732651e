/// Which protocol an ``AccessEnabler`` speaks underneath the seeds' API (``AccessEnablerConfiguration/protocol``).
///
/// The API and its callbacks are the same on both (docs/sdk.md, "The SDK on REST API v2", lists what differs).
public enum EntitlementProtocol: String, Sendable, CaseIterable, Codable {
    /// The seeds' protocol: `/adobe-services/1.0`, and REST API v1 (HMAC-signed) for the tvOS registration code.
    case sdk
    /// REST API v2 (docs/rest-api-v2.md): dynamic client registration, sessions, profiles, decisions, logout.
    case restV2 = "v2"
}
