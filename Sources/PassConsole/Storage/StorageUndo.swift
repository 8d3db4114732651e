import AccessEnabler
import Foundation

/// Undoes one console change (a clear, an import, an undo) on a storage that apps may have written since: a
/// three-way merge of the storage before the change, right after it, and as it is now. Pure: the owner runs it on
/// the value read under the storage lock and writes the result, so an app's write is never lost.
///
/// Per slot (``StorageSlot``) the change touched:
/// - still as the change left it → put back as it was before (a cleared token comes back, an imported one goes);
/// - changed since → kept as it is now, and said why (a newer token was stored, an app removed it);
/// - a pair that signed in again since keeps its new sign-in whole: the earlier session's authorizations, metadata
///   and preauthorization are not put back beside it (a new authN token drops them, as the SDK's own store does).
///
/// Slots the change did not touch are left as they are now; what apps added since is listed as kept.
struct StorageUndo: Sendable {
    enum Action: String, Encodable, Sendable { case restored, removed, kept }

    /// One item of the undo, in words.
    struct Item: Encodable, Sendable, Equatable {
        var domain: String
        var item: String
        var action: Action
        /// Why it was kept (or what was put back over what), in words.
        var reason: String?
    }

    /// The storage to write.
    var result: TokenStorage
    var items: [Item]

    /// Merges the undo of a change of `domain` that turned `before` into `after`, onto `current`. With `after`
    /// unknown (a backup older than the record of it), every slot the backup holds counts as removed by the change:
    /// it is put back only where the slot is empty now.
    init(domain: String, before: TokenStorage, after: TokenStorage?, current: TokenStorage) {
        let b = before.slots, c = current.slots
        let a = after?.slots ?? c.merging(b.filter { c[$0.key] != nil }) { _, before in before }
        var result = current
        var items: [Item] = []
        func say(_ slot: StorageSlot, _ action: Action, _ reason: String? = nil) {
            guard let words = slot.words else { return }
            items.append(Item(domain: domain, item: words, action: action, reason: reason))
        }
        let touched = Set(b.keys).union(a.keys).filter { b[$0] != a[$0] }
        // A pair whose authN token is not the one the change left was signed in again (or out) since.
        let signedInSince = Set(c.keys.filter { $0.kind == .authn && c[$0] != a[$0] })
        for slot in touched.sorted() {
            if c[slot] != a[slot] {
                say(slot, .kept, c[slot] == nil
                    ? "removed since the change (by an app or the SDK's rules); left removed"
                    : "a newer one was stored after the change; the newer one is kept")
                continue
            }
            if slot.belongsToSignIn, signedInSince.contains(slot.authnOfPair), b[slot] != nil {
                say(slot, .kept, "\(slot.requestor) / \(slot.mvpd) signed in again after the change; the earlier "
                    + "session's items are not put back beside the new sign-in")
                continue
            }
            result.set(slot, to: b[slot])
            switch (b[slot], a[slot]) {
            case (nil, _): say(slot, .removed, "added by the change")
            case (_, nil): say(slot, .restored)
            default: say(slot, .restored, "the change had replaced it; the earlier value is back")
            }
        }
        for slot in c.keys.filter({ !touched.contains($0) && c[$0] != a[$0] }).sorted() {
            say(slot, .kept, b[slot] == nil ? "added after the change" : "changed after the change")
        }
        self.result = result
        self.items = items
    }

    /// `restored 2: …; kept 1: … (why)`, for the audit log.
    static func sentence(_ items: [Item]) -> String {
        let parts: [(Action, String)] = [(.restored, "restored"), (.removed, "removed"), (.kept, "kept")]
        let text = parts.compactMap { action, word -> String? in
            let chosen = items.filter { $0.action == action }
            guard !chosen.isEmpty else { return nil }
            let list = chosen.map { item in item.reason.map { "\(item.item) (\($0))" } ?? item.item }.joined(separator: "; ")
            return "\(word) \(chosen.count): \(list)"
        }
        return text.isEmpty ? "nothing to put back (the storage already matches)" : text.joined(separator: "; ")
    }
}
