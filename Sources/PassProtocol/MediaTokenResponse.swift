import Foundation

/// The answer of `GET /api/v1/tokens/media` ≡ `/api/v1/mediatoken` (spec §5.4.3 #12).
///
/// JSON `{resource, requestor, expires, serializedToken, userId, mvpdId}`; `serializedToken` is the
/// **Base64** of the `<signatureInfo>…` media token and `expires` a string of epoch milliseconds. XML root
/// `<mediaToken>` (our choice; undocumented).
public struct MediaTokenResponse: RESTPayload {
    /// The resource the token grants.
    public var resource: String
    /// The requestor.
    public var requestor: String
    /// Expiry of the media token as a string of epoch milliseconds.
    public var expires: String
    /// The media token, Base64 of its raw form (starts `PHNpZ25hdHVyZUluZm8+`).
    public var serializedToken: String
    /// The user as Adobe sees it (the session GUID).
    public var userId: String
    /// The MVPD that authorized.
    public var mvpdId: String

    /// Creates an answer from its wire fields.
    public init(
        resource: String,
        requestor: String,
        expires: String,
        serializedToken: String,
        userId: String,
        mvpdId: String
    ) {
        self.resource = resource
        self.requestor = requestor
        self.expires = expires
        self.serializedToken = serializedToken
        self.userId = userId
        self.mvpdId = mvpdId
    }

    /// Creates the answer for a signed media token: fields copied from its body, token Base64-encoded.
    public init(token: SignedToken<MediaToken>) {
        self.init(
            resource: token.body.resourceID,
            requestor: token.body.requestorID,
            expires: EpochMilliseconds.string(token.body.expires),
            serializedToken: token.base64Serialized,
            userId: token.body.sessionGUID,
            mvpdId: token.body.mvpdID
        )
    }

    /// Decodes the JSON; an `expires` sent as a number is accepted and kept as text.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        resource = try container.decode(String.self, forKey: .resource)
        requestor = try container.decode(String.self, forKey: .requestor)
        expires = try container.lenientString(.expires) ?? ""
        serializedToken = try container.decode(String.self, forKey: .serializedToken)
        userId = try container.decode(String.self, forKey: .userId)
        mvpdId = try container.decode(String.self, forKey: .mvpdId)
    }

    /// `<mediaToken><resource/><requestor/><expires/><serializedToken/><userId/><mvpdId/></mediaToken>`.
    public func xml() -> String {
        XMLWriter.render { xml in
            xml.element("mediaToken") { xml in
                xml.element("resource", resource)
                xml.element("requestor", requestor)
                xml.element("expires", expires)
                xml.element("serializedToken", serializedToken)
                xml.element("userId", userId)
                xml.element("mvpdId", mvpdId)
            }
        }
    }
}

extension MediaTokenResponse {
    /// Written by hand: the media token answer is the hottest REST path, and `JSONEncoder` was a tenth of its CPU.
    /// Byte-equal to the encoded form (tested).
    public func json() -> Data {
        Data(JSONText.object([
            "resource": resource, "requestor": requestor, "expires": expires, "serializedToken": serializedToken,
            "userId": userId, "mvpdId": mvpdId,
        ]).utf8)
    }
}
