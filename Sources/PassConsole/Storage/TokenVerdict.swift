import AccessEnabler
import Crypto
import Foundation
import PassProtocol

/// A stored token as the console shows it: decoded fields and a verdict per validity rule of the seeds, in words,
/// with what will happen next. The browser never parses a token.
struct TokenReport: Encodable, Sendable {
    enum Kind: String, Encodable, Sendable { case authn, authz }

    /// One rule's outcome.
    struct Verdict: Encodable, Sendable, Equatable {
        /// `ttl`, `issuer`, `device`, `version`.
        var rule: String
        var ok: Bool
        var text: String
    }

    var kind: Kind
    var resource: String?
    var requestorID: String
    var mvpdID: String
    var userID: String?
    var expires: Date?
    var remainingSeconds: Int?
    var valid: Bool
    var verdicts: [Verdict]
    /// What the SDK will do with it next, in words.
    var next: String
    /// A redacted prefix, to tell tokens apart.
    var preview: String
    /// The first 16 hex digits of the token's SHA-256: equal tokens have equal fingerprints (in two exports, two
    /// support bundles), and the token cannot be recovered from it.
    var fingerprint: String
}

/// Judges stored tokens by the seeds' rules: TTL alive, issuer among the Programmer's MVPDs, bound to the device ID
/// of the apps that read it, storage version current.
struct TokenJudge: Sendable {
    /// The Programmers' allowed MVPDs, when the console knows them (the local backend's configuration).
    var allowedMvpds: [String: Set<String>]
    /// The apps that read the domain the token is in.
    var readers: [KnownApp]
    var storageVersion: Int
    var now: Date

    func authN(_ serialized: String, requestor: String, mvpd: String) -> TokenReport {
        let parsed = try? SignedToken<AuthNToken>.parse(serialized).body
        var report = base(.authn, serialized, requestor: requestor, mvpd: parsed?.mvpdID ?? mvpd, expires: parsed?.expires)
        report.userID = parsed?.guid
        report.verdicts = verdicts(expires: parsed?.expires, issuer: parsed?.mvpdID, requestor: requestor,
            matches: parsed.map { token in { token.matches(deviceID: $0) } }, unreadable: parsed == nil)
        report.valid = report.verdicts.allSatisfy(\.ok)
        report.next = report.valid
            ? "Used as is: checkAuthentication answers 1 and no login page is shown."
            : "Counts as absent: the next getAuthentication shows the provider picker (or the cached MVPD's login page)."
        return report
    }

    func authZ(_ serialized: String, requestor: String, mvpd: String, resource: String) -> TokenReport {
        let parsed = try? SignedToken<AuthZToken>.parse(serialized).body
        var report = base(.authz, serialized, requestor: requestor, mvpd: parsed?.mvpdID ?? mvpd, expires: parsed?.expires)
        report.resource = resource
        report.verdicts = verdicts(expires: parsed?.expires, issuer: parsed?.mvpdID, requestor: requestor,
            matches: parsed.map { token in { token.matches(deviceID: $0) } }, unreadable: parsed == nil)
        report.valid = report.verdicts.allSatisfy(\.ok)
        report.next = report.valid
            ? "The next getAuthorization(\(resource)) skips the authorization call and only fetches a media token."
            : "The next getAuthorization(\(resource)) asks the backend again (one more round trip)."
        return report
    }

    private func base(_ kind: TokenReport.Kind, _ serialized: String, requestor: String, mvpd: String, expires: Date?)
        -> TokenReport
    {
        TokenReport(
            kind: kind, requestorID: requestor, mvpdID: mvpd, expires: expires,
            remainingSeconds: expires.map { Duration.wholeSeconds($0.timeIntervalSince(now).rounded(.down)) }, valid: false, verdicts: [],
            next: "", preview: Self.preview(serialized), fingerprint: Self.fingerprint(serialized))
    }

    private func verdicts(
        expires: Date?, issuer: String?, requestor: String, matches: ((String) -> Bool)?, unreadable: Bool
    ) -> [TokenReport.Verdict] {
        guard !unreadable, let expires, let issuer, let matches else {
            return [.init(rule: "ttl", ok: false, text: "The token cannot be read, so the SDK treats it as absent.")]
        }
        var result: [TokenReport.Verdict] = []
        let left = expires.timeIntervalSince(now)
        result.append(left > 0
            ? .init(rule: "ttl", ok: true, text: "Alive: \(Duration.words(left)) left (until \(EntitlementEvent.Wire.format(expires))).")
            : .init(rule: "ttl", ok: false, text: "Expired \(Duration.words(-left)) ago (at \(EntitlementEvent.Wire.format(expires)))."))
        if let allowed = allowedMvpds[requestor] {
            result.append(allowed.contains(issuer)
                ? .init(rule: "issuer", ok: true, text: "Issued by \(issuer), one of \(requestor)'s MVPDs.")
                : .init(rule: "issuer", ok: false, text: "Issued by \(issuer), which \(requestor) does not integrate: the SDK ignores it."))
        } else {
            result.append(.init(rule: "issuer", ok: true,
                text: "Issued by \(issuer); \(requestor)'s MVPD list is not known to this console, so this rule was not checked."))
        }
        if readers.isEmpty {
            result.append(.init(rule: "device", ok: true,
                text: "No app that reads this storage is known yet, so the device binding was not checked."))
        } else {
            let matching = readers.filter { matches($0.deviceID) }.map(\.identity.bundleID)
            let other = readers.filter { !matches($0.deviceID) }.map(\.identity.bundleID)
            if other.isEmpty {
                result.append(.init(rule: "device", ok: true,
                    text: "Bound to this device ID (\(matching.joined(separator: ", ")))."))
            } else if matching.isEmpty {
                result.append(.init(rule: "device", ok: false, text: "Bound to another device ID: "
                    + "\(other.joined(separator: ", ")) will remove it at the next setRequestor (token sanitizer, SEC412)."))
            } else {
                result.append(.init(rule: "device", ok: false, text: "Matches \(matching.joined(separator: ", ")) but not "
                    + "\(other.joined(separator: ", ")) (another bundle-ID prefix, so another device ID): their sanitizer removes it."))
            }
        }
        result.append(storageVersion == TokenStorage.currentVersion
            ? .init(rule: "version", ok: true, text: "In storage version \(storageVersion), the version this SDK reads.")
            : .init(rule: "version", ok: false, text: "In storage version \(storageVersion); this SDK reads "
                + "\(TokenStorage.currentVersion), so it only reaches it through the token importer."))
        return result
    }

    /// The first characters of a token and its length: enough to tell two apart, useless to replay.
    static func fingerprint(_ serialized: String) -> String {
        SHA256.hash(data: Data(serialized.utf8)).prefix(8).hexString
    }

    static func preview(_ serialized: String) -> String {
        "\(serialized.prefix(12))… (\(serialized.count) chars, redacted)"
    }
}

extension Duration {
    /// `2 d 3 h`, `3 h 12 min`, `5 min`, `40 s`.
    static func words(_ seconds: TimeInterval) -> String {
        let total = wholeSeconds(seconds.rounded())
        let days = total / 86400, hours = (total % 86400) / 3600, minutes = (total % 3600) / 60
        if days > 0 { return hours > 0 ? "\(days) d \(hours) h" : "\(days) d" }
        if hours > 0 { return minutes > 0 ? "\(hours) h \(minutes) min" : "\(hours) h" }
        if minutes > 0 { return "\(minutes) min" }
        return "\(total) s"
    }

    /// `seconds` as a whole number, clamped to ±10¹⁵ (NaN as 0): a token's expiry comes from a file or a client and
    /// may be any date, and `Int(_:)` traps outside its range.
    static func wholeSeconds(_ seconds: TimeInterval) -> Int {
        seconds.isNaN ? 0 : Int(min(max(seconds, -1e15), 1e15))
    }
}
