import Foundation
import PassEvents
import PassProtocol
import WireDates

/// A token an answer carries, decoded from the wire before the body is redacted (a proxy has nothing else to go on):
/// its kind, Programmer, MVPD, resource, user and times, in words, and the user ID it names.
struct WireToken {
    var words: String
    var userID: String?

    init(words: String, userID: String?) {
        self.words = words
        self.userID = userID
    }

    /// The first token in `body`: raw, XML-escaped (`<authnToken>` answers) or Base64 (REST's `serializedToken`).
    init?(in body: Data) {
        guard !body.isEmpty, body.count < 1 << 20, Self.mayHoldToken(body) else { return nil }
        let text = String(decoding: body, as: UTF8.self)
        for candidate in Self.candidates(text) {
            if let token = Self.decode(candidate) {
                self = token
                return
            }
        }
        return nil
    }

    static let marker = "<signatureInfo>"
    static let signatureInfo = Array("signatureInfo".utf8)
    static let serializedToken = Array("serializedToken".utf8)

    /// A byte scan before any parsing: most answers hold no token.
    static func mayHoldToken(_ body: Data) -> Bool {
        ByteSearch.contains(Self.signatureInfo, in: body) || ByteSearch.contains(Self.serializedToken, in: body)
    }

    /// Serialized tokens found in `text`, raw first.
    static func candidates(_ text: String) -> [String] {
        var found: [String] = []
        let unescaped = text.contains("&lt;signatureInfo&gt;") ? XMLEscaping.unescape(text) : text
        if let start = unescaped.range(of: marker) {
            var token = String(unescaped[start.lowerBound...])
            // The token ends where the element that holds it does.
            for end in ["</authnToken>", "</authzToken>", "</shortAuthorizationToken>", "</result>", "\""] {
                if let close = token.range(of: end), end != "</shortAuthorizationToken>" {
                    token = String(token[..<close.lowerBound])
                    break
                } else if let close = token.range(of: end) {
                    token = String(token[..<close.upperBound])
                    break
                }
            }
            found.append(token)
        }
        if let json = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let serialized = json["serializedToken"] as? String
        {
            let padded = serialized.padding(toLength: (serialized.count + 3) / 4 * 4, withPad: "=", startingAt: 0)
            found.append(Data(base64Encoded: padded).map { String(decoding: $0, as: UTF8.self) } ?? serialized)
        }
        return found
    }

    static func decode(_ serialized: String) -> WireToken? {
        if let media = try? SignedToken<MediaToken>.parse(serialized).body {
            return WireToken(
                words: "media token for '\(media.resourceID)' of \(media.requestorID) at \(media.mvpdID), user \(media.sessionGUID), "
                    + "issued \(ISODate.format(media.issueTime)), valid \(media.ttlMilliseconds / 1000) s",
                userID: media.sessionGUID)
        }
        if let authn = try? SignedToken<AuthNToken>.parse(serialized).body {
            return WireToken(
                words: "authN token of \(authn.requestorID) at \(authn.mvpdID), user \(authn.guid), expires \(ISODate.format(authn.expires))",
                userID: authn.guid)
        }
        if let authz = try? SignedToken<AuthZToken>.parse(serialized).body {
            return WireToken(
                words: "authZ token for '\(authz.resourceID)' of \(authz.requestorID) at \(authz.mvpdID), expires \(ISODate.format(authz.expires))",
                userID: nil)
        }
        return nil
    }
}
