import Foundation
import PassProtocol

extension BackendService {
    /// Why the MVPD refuses `resource` to the session's subscriber, or `nil` when it is allowed.
    ///
    /// A configured denial (the `mvpd.deny` condition) wins and carries the MVPD's own message.
    func entitlementRefusal(session: AuthSession, resource: String) -> String? {
        let resourceID = Self.resourceID(resource)
        if let message = faults.denial(resource: resourceID, mvpd: session.mvpdID) { return message }
        guard self.resource(resourceID) != nil else { return "Unknown resource \(resourceID)." }
        guard let subscriber = subscriber(of: session) else { return "The subscriber's account no longer exists." }
        guard subscriber.isEntitled(to: resourceID) else {
            return "0033: The customer is not authorized for the content requested (\(resourceID))."
        }
        return nil
    }

    /// The resource ID inside an MRSS resource (`<rss><channel><title>ID</title>…`), or the plain ID.
    static func resourceID(_ resource: String) -> String {
        guard resource.hasPrefix("<rss"), let start = resource.range(of: "<title>"),
            let end = resource.range(of: "</title>", range: start.upperBound..<resource.endIndex)
        else { return resource }
        return String(resource[start.upperBound..<end.lowerBound])
    }

    /// The user metadata of a subscriber (spec §6.5).
    func userMetadata(for subscriber: Subscriber, session: AuthSession? = nil) -> UserMetadata {
        var data = subscriber.metadata
        data["userID"] = data["userID"] ?? .string(subscriber.userID)
        if let source = session?.tokenSource { data["tokenSource"] = .string(source) }
        let metadata = UserMetadata(updated: Int64(now().timeIntervalSince1970), data: data)
        // Encrypted for the Programmer the session belongs to (spec §6.5).
        guard let encryption = session.flatMap({ programmer($0.requestorID)?.metadataEncryption }) else { return metadata }
        return encryption.apply(to: metadata)
    }
}
