import AccessEnabler
import Foundation

/// What a console "clear" removes: all of a domain, one Programmer, one Programmer–MVPD pair, or one authZ token.
/// Pure: applies to a ``TokenStorage`` value and lists, in words, exactly what went.
struct ClearScope: Codable, Sendable, Equatable {
    var domain: String
    var requestorID: String?
    var mvpdID: String?
    var resource: String?
    var dryRun: Bool?

    init(domain: String, requestorID: String? = nil, mvpdID: String? = nil, resource: String? = nil, dryRun: Bool? = nil) {
        self.domain = domain
        self.requestorID = requestorID
        self.mvpdID = mvpdID
        self.resource = resource
        self.dryRun = dryRun
    }

    private enum CodingKeys: String, CodingKey { case domain, requestorID, mvpdID, resource, dryRun }

    /// A scope's names are given or left out, never `null`: `{"mvpdID": null}` would read as "no MVPD" and widen a
    /// clear the sender meant to narrow.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        domain = try container.decode(String.self, forKey: .domain)
        requestorID = try container.decodeUnlessNull(String.self, forKey: .requestorID)
        mvpdID = try container.decodeUnlessNull(String.self, forKey: .mvpdID)
        resource = try container.decodeUnlessNull(String.self, forKey: .resource)
        dryRun = try container.decodeIfPresent(Bool.self, forKey: .dryRun)
    }

    /// Why a scope cannot be used.
    var problem: String? {
        if resource != nil && (mvpdID == nil || requestorID == nil) {
            return "Clearing one authorization token needs requestorID, mvpdID and resource."
        }
        if mvpdID != nil && requestorID == nil { return "Clearing an MVPD needs the requestorID it belongs to." }
        return nil
    }

    /// Removes what the scope names from `storage`; returns what went, one line per item.
    func apply(to storage: inout TokenStorage) -> [String] {
        var removed: [String] = []
        for (requestor, bucket) in storage.requestors.sorted(by: { $0.key < $1.key })
        where requestorID == nil || requestorID == requestor {
            for (mvpd, tokens) in bucket.mvpds.sorted(by: { $0.key < $1.key }) where mvpdID == nil || mvpdID == mvpd {
                if let resource {
                    if tokens.authzTokens[resource] != nil {
                        removed.append("authorization token for \(resource) (\(requestor) / \(mvpd))")
                        storage.removeAuthorization(requestor: requestor, mvpd: mvpd, resource: resource)
                    }
                    continue
                }
                if tokens.authnToken != nil { removed.append("authentication token of \(requestor) / \(mvpd)") }
                for resource in tokens.authzTokens.keys.sorted() {
                    removed.append("authorization token for \(resource) (\(requestor) / \(mvpd))")
                }
                if tokens.userMeta != nil { removed.append("user metadata of \(requestor) / \(mvpd)") }
                if tokens.preauthorizedResources != nil { removed.append("preauthorization answer of \(requestor) / \(mvpd)") }
                storage.removeBucket(requestor: requestor, mvpd: mvpd)
            }
            if mvpdID == nil, resource == nil, let selected = bucket.currentMvpdID {
                removed.append("selected MVPD \(selected) of \(requestor)")
                storage.requestors[requestor] = nil
            } else if mvpdID != nil, resource == nil, bucket.currentMvpdID == mvpdID {
                removed.append("selected MVPD \(mvpdID!) of \(requestor)")
            }
        }
        if requestorID == nil {
            for mvpd in storage.passiveAuthnCookies.keys.sorted() { removed.append("passive-authentication cookies of \(mvpd)") }
            storage.clearAll()
        }
        return removed
    }

    /// `REF30 / Cablevision in team:TEAM1234`, for the audit log.
    var description: String {
        var parts: [String] = []
        if let requestorID { parts.append(requestorID) }
        if let mvpdID { parts.append(mvpdID) }
        if let resource { parts.append(resource) }
        return (parts.isEmpty ? "everything" : parts.joined(separator: " / ")) + " in \(domain)"
    }
}
