import AccessEnabler
import Foundation

/// Whether the apps that read an import's target storage will refuse a token, judged by the SDK's own rules
/// (``TokenValidity`` with each reader's device ID, the Programmer's MVPD list, the storage version it reads), not
/// by a copy of them: what the preview warns about is what the apps will do.
struct ImportRefusal: Sendable, Equatable {
    /// `ttl`, `issuer`, `device`, `version`, as ``TokenReport/Verdict`` names the rules.
    var rule: String
    /// `will be refused: …`, in words.
    var text: String

    /// The rules of the target domain's readers.
    struct Rules: Sendable {
        /// The apps that read the target domain (with the device ID their SDK computes there).
        var readers: [KnownApp]
        var allowedMvpds: [String: Set<String>]
        /// The storage version the tokens come in.
        var storageVersion: Int
        var now: Date

        /// Why the readers will refuse an authN token of `requestor`, or nil when they will use it.
        func authN(_ serialized: String, requestor: String) -> ImportRefusal? {
            judge(requestor, sanitizer: true) { TokenValidity.authN(serialized, allowedMvpds: $0, now: now, deviceID: $1).0 }
        }

        /// Why the readers will refuse an authZ token of `requestor`, or nil when they will use it.
        func authZ(_ serialized: String, requestor: String) -> ImportRefusal? {
            judge(requestor, sanitizer: false) { TokenValidity.authZ(serialized, allowedMvpds: $0, now: now, deviceID: $1).0 }
        }

        private func judge(
            _ requestor: String, sanitizer: Bool, _ validity: (Set<String>?, String?) -> TokenValidity
        ) -> ImportRefusal? {
            guard storageVersion == TokenStorage.currentVersion else {
                return ImportRefusal(rule: "version", text: "will be refused: it comes in storage version \(storageVersion) and "
                    + "the SDK reads version \(TokenStorage.currentVersion)")
            }
            switch validity(allowedMvpds[requestor], nil) {
            case .valid, .boundToAnotherDevice: break
            case .expired(let date):
                return ImportRefusal(rule: "ttl", text: "will be refused: expired at \(EntitlementEvent.Wire.format(date)), so "
                    + "the SDK treats it as absent")
            case .issuerNotAllowed(let mvpd):
                return ImportRefusal(rule: "issuer", text: "will be refused: issued by \(mvpd), which \(requestor) does not "
                    + "integrate, so the SDK ignores it")
            case .malformed(let reason):
                return ImportRefusal(rule: "ttl", text: "will be refused: unreadable token (\(reason))")
            }
            let refusing = readers.filter { validity(nil, $0.deviceID) == .boundToAnotherDevice }.map(\.identity.bundleID)
            guard !refusing.isEmpty else { return nil }
            let who = refusing.sorted().joined(separator: ", ")
            return ImportRefusal(rule: "device", text: sanitizer
                ? "will be refused: bound to another device ID; \(who) removes it at the next setRequestor (token sanitizer, SEC412)"
                : "will be refused: bound to another device ID; \(who) ignores it and asks the backend again")
        }
    }
}
