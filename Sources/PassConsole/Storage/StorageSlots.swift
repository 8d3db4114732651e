import AccessEnabler
import Foundation

/// One place a ``TokenStorage`` keeps a value: a Programmer's selected MVPD, a pair's authN token, sign-in flag,
/// user metadata or preauthorization answer, one authZ token, an MVPD's passive-authentication cookies. Undo
/// compares storages slot by slot, so a token stored since a clear is told apart from one the clear removed.
struct StorageSlot: Hashable, Sendable, Comparable {
    enum Kind: Int, Sendable { case selectedMvpd, authn, canAuthenticate, userMeta, preauthorized, authz, cookies }

    var kind: Kind
    var requestor = ""
    var mvpd = ""
    var resource = ""

    static func < (a: StorageSlot, b: StorageSlot) -> Bool {
        (a.requestor, a.mvpd, a.kind.rawValue, a.resource) < (b.requestor, b.mvpd, b.kind.rawValue, b.resource)
    }

    /// Slots that belong to one sign-in of a pair: a new authN token drops them (``TokenStorage/storeAuthentication``).
    var belongsToSignIn: Bool { [.canAuthenticate, .userMeta, .preauthorized, .authz].contains(kind) }

    /// The authN slot of this slot's pair.
    var authnOfPair: StorageSlot { StorageSlot(kind: .authn, requestor: requestor, mvpd: mvpd) }

    /// In words, as the clear's list names it; nil for the sign-in flag (it goes and comes with the token).
    var words: String? {
        switch kind {
        case .selectedMvpd: "selected MVPD of \(requestor)"
        case .authn: "authentication token of \(requestor) / \(mvpd)"
        case .canAuthenticate: nil
        case .userMeta: "user metadata of \(requestor) / \(mvpd)"
        case .preauthorized: "preauthorization answer of \(requestor) / \(mvpd)"
        case .authz: "authorization token for \(resource) (\(requestor) / \(mvpd))"
        case .cookies: "passive-authentication cookies of \(mvpd)"
        }
    }
}

extension TokenStorage {
    /// Every value the storage holds, by slot (lists and cookies as JSON text).
    var slots: [StorageSlot: String] {
        var slots: [StorageSlot: String] = [:]
        for (requestor, bucket) in requestors {
            if let selected = bucket.currentMvpdID { slots[StorageSlot(kind: .selectedMvpd, requestor: requestor)] = selected }
            for (mvpd, tokens) in bucket.mvpds {
                let pair = { (kind: StorageSlot.Kind) in StorageSlot(kind: kind, requestor: requestor, mvpd: mvpd) }
                slots[pair(.authn)] = tokens.authnToken
                if tokens.canAuthenticate { slots[pair(.canAuthenticate)] = "true" }
                slots[pair(.userMeta)] = tokens.userMeta
                slots[pair(.preauthorized)] = tokens.preauthorizedResources.map(Self.json)
                for (resource, token) in tokens.authzTokens {
                    slots[StorageSlot(kind: .authz, requestor: requestor, mvpd: mvpd, resource: resource)] = token
                }
            }
        }
        for (mvpd, cookies) in passiveAuthnCookies { slots[StorageSlot(kind: .cookies, mvpd: mvpd)] = Self.json(cookies) }
        return slots
    }

    /// Sets one slot (`nil` removes it), then drops buckets left with nothing in them.
    mutating func set(_ slot: StorageSlot, to value: String?) {
        func change(_ update: (inout MVPDBucket) -> Void) {
            var bucket = requestors[slot.requestor, default: RequestorBucket()].mvpds[slot.mvpd, default: MVPDBucket()]
            update(&bucket)
            requestors[slot.requestor, default: RequestorBucket()].mvpds[slot.mvpd] = bucket == MVPDBucket() ? nil : bucket
        }
        switch slot.kind {
        case .selectedMvpd: requestors[slot.requestor, default: RequestorBucket()].currentMvpdID = value
        case .authn: change { $0.authnToken = value }
        case .canAuthenticate: change { $0.canAuthenticate = value != nil }
        case .userMeta: change { $0.userMeta = value }
        case .preauthorized: change { $0.preauthorizedResources = value.flatMap { Self.decoded([String].self, $0) } }
        case .authz: change { $0.authzTokens[slot.resource] = value }
        case .cookies: passiveAuthnCookies[slot.mvpd] = value.flatMap { Self.decoded([String: [String]].self, $0) }
        }
        if let bucket = requestors[slot.requestor], bucket.mvpds.isEmpty, bucket.currentMvpdID == nil {
            requestors[slot.requestor] = nil
        }
    }

    private static func json<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self)
    }

    private static func decoded<T: Decodable>(_ type: T.Type, _ text: String) -> T? {
        try? JSONDecoder().decode(type, from: Data(text.utf8))
    }
}
