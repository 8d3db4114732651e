import Foundation

/// The backend's admin token as tools find it.
public enum AdminToken {
    /// The environment variable tools read the token from.
    public static let environmentVariable = "PASSBACKEND_ADMIN_TOKEN"

    /// `PASSBACKEND_ADMIN_TOKEN` when set and not empty: what tools send to a backend's `/admin`.
    public static var fromEnvironment: String? {
        ProcessInfo.processInfo.environment[environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
    }
}
