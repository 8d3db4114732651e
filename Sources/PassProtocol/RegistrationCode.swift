/// A second-screen registration code record: the answer of `POST /reggie/v1/{requestor}/regcode` and
/// `GET …/regcode/{code}` (spec §5.4.3 #1–2).
///
/// JSON: `{id, code, requestor, mvpd, generated, expires, info: {…}}` with `generated`/`expires` as
/// epoch-millisecond *numbers*. XML root: `<ns2:regcode xmlns:ns2="model.mvc.reggie.pass.adobe.com">`.
public struct RegistrationCode: RESTPayload {
    /// The record's UUID; also used as device ID by platforms without one (spec §6.6).
    public var id: String
    /// The code the user types on the second screen, e.g. `TJJCFK`.
    public var code: String
    /// The requestor that asked for the code.
    public var requestor: String
    /// The MVPD chosen on the device, if any.
    public var mvpd: String?
    /// When the code was made, epoch milliseconds.
    public var generated: Int64
    /// When the code stops working, epoch milliseconds.
    public var expires: Int64
    /// What the device told about itself.
    public var info: RegistrationInfo

    /// Creates a record.
    public init(
        id: String,
        code: String,
        requestor: String,
        mvpd: String? = nil,
        generated: Int64,
        expires: Int64,
        info: RegistrationInfo
    ) {
        self.id = id
        self.code = code
        self.requestor = requestor
        self.mvpd = mvpd
        self.generated = generated
        self.expires = expires
        self.info = info
    }

    /// The XML namespace of the root element.
    public static let xmlNamespace = "model.mvc.reggie.pass.adobe.com"

    /// The record as compact XML under `<ns2:regcode xmlns:ns2="model.mvc.reggie.pass.adobe.com">`.
    public func xml() -> String {
        XMLWriter.render { xml in
            xml.element("ns2:regcode", attributes: ["xmlns:ns2": Self.xmlNamespace]) { xml in
                xml.element("id", id)
                xml.element("code", code)
                xml.element("requestor", requestor)
                xml.optionalElement("mvpd", mvpd)
                xml.element("generated", String(generated))
                xml.element("expires", String(expires))
                xml.element("info") { xml in info.write(into: &xml) }
            }
        }
    }
}

/// The `info` object of a ``RegistrationCode``: the registering device's description.
///
/// Only `deviceId` is always present; Adobe's samples show the others as `null`. Unset fields are omitted.
public struct RegistrationInfo: Codable, Sendable, Equatable {
    /// The device ID sent as `deviceId`.
    public var deviceId: String
    /// Deprecated `deviceType` parameter, e.g. `tvOS`.
    public var deviceType: String?
    /// Deprecated `deviceUser` parameter.
    public var deviceUser: String?
    /// Deprecated `appId` parameter; non-empty scopes tokens to the app (no SSO).
    public var appId: String?
    /// Deprecated `appVersion` parameter.
    public var appVersion: String?
    /// Legacy `registrationURL` parameter: where the user enters the code.
    public var registrationURL: String?
    /// The `device_info` / `X-Device-Info` value as received (Base64).
    public var deviceInfo: String?
    /// The User-Agent seen by the server.
    public var userAgent: String?
    /// The User-Agent before any proxy rewrote it.
    public var originalUserAgent: String?
    /// How the request was authorized, e.g. `OAUTH2` or `HMAC`.
    public var authorizationType: String?
    /// The registered application that asked, when known.
    public var sourceApplicationInformation: SourceApplicationInformation?

    /// Creates device information; set optional fields as properties.
    public init(deviceId: String) {
        self.deviceId = deviceId
    }

    fileprivate func write(into xml: inout XMLWriter) {
        xml.element("deviceId", deviceId)
        xml.optionalElement("deviceType", deviceType)
        xml.optionalElement("deviceUser", deviceUser)
        xml.optionalElement("appId", appId)
        xml.optionalElement("appVersion", appVersion)
        xml.optionalElement("registrationURL", registrationURL)
        xml.optionalElement("deviceInfo", deviceInfo)
        xml.optionalElement("userAgent", userAgent)
        xml.optionalElement("originalUserAgent", originalUserAgent)
        xml.optionalElement("authorizationType", authorizationType)
        if let source = sourceApplicationInformation {
            xml.element("sourceApplicationInformation") { xml in
                xml.optionalElement("id", source.id)
                xml.optionalElement("name", source.name)
                xml.optionalElement("version", source.version)
            }
        }
    }
}

/// The registered application behind a registration request: `{id, name, version}`.
public struct SourceApplicationInformation: Codable, Sendable, Equatable {
    /// The application's client ID.
    public var id: String?
    /// The application's name.
    public var name: String?
    /// The application's version.
    public var version: String?

    /// Creates application information.
    public init(id: String? = nil, name: String? = nil, version: String? = nil) {
        self.id = id
        self.name = name
        self.version = version
    }
}
