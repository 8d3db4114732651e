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
        /// `ttl`, `issuer`, `device`, `version`, and for a sign-in `requestor` (the backend's rule).
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

/// Judges stored tokens by the SDK's own rules, rule by rule: ``TokenValidity/Rules`` for the TTL, the issuer among
/// the Programmer's MVPDs and the binding to the device ID of each app that reads the storage; the storage version
/// the SDK reads (``TokenStorage/currentVersion``); and the service's ``RequestorBinding`` for a sign-in copied from
/// another Programmer. Nothing here re-implements a rule: what the grid says is what the apps and the backend do.
struct TokenJudge: Sendable {
    /// The Programmers' allowed MVPDs, when the console knows them (the local backend's configuration).
    var allowedMvpds: [String: Set<String>]
    /// The MVPDs with authentication per requestor, when the console knows them: the service's ``RequestorBinding``
    /// refuses their tokens to any other Programmer.
    var perRequestorMvpds: Set<String>? = nil
    /// The apps that read the domain the token is in.
    var readers: [KnownApp]
    var storageVersion: Int
    var now: Date

    func authN(_ serialized: String, requestor: String, mvpd: String) -> TokenReport {
        let parsed = TokenValidity.authN(serialized, allowedMvpds: nil, now: now).1
        var report = base(.authn, serialized, requestor: requestor, mvpd: parsed?.mvpdID ?? mvpd, expires: parsed?.expires)
        report.userID = parsed?.guid
        report.verdicts = parsed.map { token in
            verdicts(expires: token.expires, issuer: token.mvpdID, requestor: requestor, sanitizer: true) {
                TokenValidity.Rules(token, allowedMvpds: $0, now: now, deviceID: $1)
            } + [binding(issuedTo: token.requestorID, mvpd: token.mvpdID, requestor: requestor)]
        } ?? [Self.unreadable]
        report.valid = report.verdicts.allSatisfy(\.ok)
        let sdkUses = report.verdicts.allSatisfy { $0.ok || $0.rule == Self.requestorRule }
        report.next =
            report.valid
            ? "Used as is: checkAuthentication answers 1 and no login page is shown."
            : sdkUses
                ? "The SDK uses it (checkAuthentication answers 1), but the backend refuses it: the next "
                    + "getAuthorization fails and the viewer signs in again."
                : "Counts as absent: the next getAuthentication shows the provider picker (or the cached MVPD's login page)."
        return report
    }

    func authZ(_ serialized: String, requestor: String, mvpd: String, resource: String) -> TokenReport {
        let parsed = TokenValidity.authZ(serialized, allowedMvpds: nil, now: now).1
        var report = base(.authz, serialized, requestor: requestor, mvpd: parsed?.mvpdID ?? mvpd, expires: parsed?.expires)
        report.resource = resource
        report.verdicts = parsed.map { token in
            verdicts(expires: token.expires, issuer: token.mvpdID, requestor: requestor, sanitizer: false) {
                TokenValidity.Rules(token, allowedMvpds: $0, now: now, deviceID: $1)
            }
        } ?? [Self.unreadable]
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

    static let unreadable = TokenReport.Verdict(rule: "ttl", ok: false, text: "The token cannot be read, so the SDK treats it as absent.")
    /// The verdict name of the service's ``RequestorBinding``.
    static let requestorRule = "requestor"

    /// The TTL, issuer, device and version verdicts; `rules(allowedMvpds, deviceID)` answers the SDK's rules for the
    /// token.
    /// - Parameter sanitizer: true for an authN token (the token sanitizer removes one bound to another device), false
    ///   for an authZ token (the SDK ignores it and asks the backend again).
    private func verdicts(
        expires: Date, issuer: String, requestor: String, sanitizer: Bool, rules: (Set<String>?, String?) -> TokenValidity.Rules
    ) -> [TokenReport.Verdict] {
        var result: [TokenReport.Verdict] = []
        let allowed = allowedMvpds[requestor]
        let judged = rules(allowed, nil)
        if case .expired(let expires) = judged.ttl {
            result.append(.init(rule: "ttl", ok: false,
                text: "Expired \(Duration.words(now.timeIntervalSince(expires))) ago (at \(EntitlementEvent.Wire.format(expires)))."))
        } else {
            result.append(.init(rule: "ttl", ok: true,
                text: "Alive: \(Duration.words(expires.timeIntervalSince(now))) left (until \(EntitlementEvent.Wire.format(expires)))."))
        }
        if allowed == nil {
            result.append(.init(rule: "issuer", ok: true,
                text: "Issued by \(issuer); \(requestor)'s MVPD list is not known to this console, so this rule was not checked."))
        } else if case .issuerNotAllowed = judged.issuer {
            result.append(.init(rule: "issuer", ok: false, text: "Issued by \(issuer), which \(requestor) does not integrate: the SDK ignores it."))
        } else {
            result.append(.init(rule: "issuer", ok: true, text: "Issued by \(issuer), one of \(requestor)'s MVPDs."))
        }
        result.append(device(sanitizer: sanitizer) { rules(nil, $0).device.isValid })
        result.append(storageVersion == TokenStorage.currentVersion
            ? .init(rule: "version", ok: true, text: "In storage version \(storageVersion), the version this SDK reads.")
            : .init(rule: "version", ok: false, text: "In storage version \(storageVersion); this SDK reads "
                + "\(TokenStorage.currentVersion), so it only reaches it through the token importer."))
        return result
    }

    /// The device verdict: `matches(deviceID)` is the SDK's device rule for each reader's device ID.
    private func device(sanitizer: Bool, matches: (String) -> Bool) -> TokenReport.Verdict {
        guard !readers.isEmpty else {
            return .init(rule: "device", ok: true,
                text: "No app that reads this storage is known yet, so the device binding was not checked.")
        }
        let matching = readers.filter { matches($0.deviceID) }.map(\.identity.bundleID)
        let other = readers.filter { !matches($0.deviceID) }.map(\.identity.bundleID)
        if other.isEmpty {
            return .init(rule: "device", ok: true, text: "Bound to this device ID (\(matching.joined(separator: ", "))).")
        }
        let consequence = sanitizer
            ? "will remove it at the next setRequestor (token sanitizer, SEC412)"
            : "ignores it and asks the backend again"
        if matching.isEmpty {
            return .init(rule: "device", ok: false,
                text: "Bound to another device ID: \(other.joined(separator: ", ")) \(consequence).")
        }
        return .init(rule: "device", ok: false, text: "Matches \(matching.joined(separator: ", ")) but not "
            + "\(other.joined(separator: ", ")) (another bundle-ID prefix, so another device ID), which \(consequence).")
    }

    /// The service's rule for a sign-in held for `requestor`: ``RequestorBinding`` accepts a token issued to another
    /// Programmer (a silent SSO copy) only when its MVPD has no authentication per requestor.
    private func binding(issuedTo: String, mvpd: String, requestor: String) -> TokenReport.Verdict {
        if issuedTo == requestor {
            return .init(rule: Self.requestorRule, ok: true, text: "Issued to \(requestor), so the backend accepts it.")
        }
        guard let perRequestorMvpds else {
            return .init(rule: Self.requestorRule, ok: true,
                text: "Issued to \(issuedTo) and copied here (silent SSO); whether \(mvpd) signs in per Programmer is not "
                    + "known to this console, so the backend's rule was not checked.")
        }
        let perRequestor = perRequestorMvpds.contains(mvpd)
        guard !RequestorBinding.accepts(tokenIssuedTo: issuedTo, presentedBy: requestor, authnPerRequestor: perRequestor) else {
            return .init(rule: Self.requestorRule, ok: true,
                text: "Issued to \(issuedTo) and copied here (silent SSO): \(mvpd) signs in once for every Programmer, so "
                    + "the backend accepts it from \(requestor).")
        }
        let rule = TokenRejection.rule(forCode: RequestorBinding.rejectionCode) ?? RequestorBinding.rejectionCode
        return .init(rule: Self.requestorRule, ok: false,
            text: "Issued to \(issuedTo) and copied here (silent SSO), but \(mvpd) now signs in per Programmer: the SDK counts "
                + "it for \(requestor) until its next setRequestor, and the backend check “\(rule)” "
                + "(\(RequestorBinding.rejectionCode)) refuses it, so \(requestor)'s next authorization fails.")
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
