import Foundation

/// Compares secrets (access tokens) in time that depends only on their lengths, never on where they first differ.
public enum SecretComparison {
    /// Whether `presented` equals `expected`; an empty `expected` matches nothing.
    public static func matches(_ presented: String?, _ expected: String) -> Bool {
        guard let presented, !expected.isEmpty else { return false }
        let a = Array(presented.utf8)
        let b = Array(expected.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<b.count { difference |= b[index] ^ (index < a.count ? a[index] : ~b[index]) }
        return difference == 0
    }

    /// The token of an `Authorization: Bearer <token>` header value, or nil.
    public static func bearerToken(_ authorization: String?) -> String? {
        guard let authorization, authorization.count > 7, authorization.prefix(7).lowercased() == "bearer " else { return nil }
        return String(authorization.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }
}
