extension RequestorConfiguration {
    /// The configuration as compact XML with root `<config>`, no whitespace between elements.
    ///
    /// Compactness is required: the Android 1.8 parser fails on a whitespace text node inside `<mvpds>`
    /// (spec §5.2.1). Every MVPD flag is written explicitly; `authenticationTTLSeconds` only when set.
    public func xml() -> String {
        XMLWriter.render { xml in
            xml.element("config") { xml in
                xml.element("device", device)
                xml.element("clientType", clientType)
                xml.element("os", os)
                xml.element("requestor") { xml in
                    xml.element("id", requestorID)
                    xml.element("name", requestorName)
                    xml.element("mvpds") { xml in
                        for mvpd in mvpds { xml.mvpd(mvpd) }
                    }
                }
            }
        }
    }

    /// Reads the configuration XML (parsed with Foundation's `XMLParser`).
    ///
    /// Whitespace between elements is tolerated and unknown elements are ignored; `id`, `displayName` and
    /// `logoUrl` are required for every MVPD, as the Android SDK requires them. Absent flags take their
    /// defaults (`passiveAuthnEnabled` true, the others false).
    ///
    /// - Throws: ``PayloadFormatError`` naming the missing element or malformed value.
    public static func parse(xml: String) throws(PayloadFormatError) -> RequestorConfiguration {
        let root = try XMLNode.parse(xml)
        guard root.name == "config" else {
            throw PayloadFormatError("expected a <config> document, found <\(root.name)>")
        }
        guard let requestor = root.child("requestor") else {
            throw PayloadFormatError("missing element requestor")
        }
        guard let requestorID = requestor.text(of: "id") else {
            throw PayloadFormatError("missing element requestor/id")
        }
        var mvpds: [MVPDInfo] = []
        for node in requestor.child("mvpds")?.children("mvpd") ?? [] {
            mvpds.append(try mvpd(from: node))
        }
        return RequestorConfiguration(
            device: root.text(of: "device") ?? "",
            clientType: root.text(of: "clientType") ?? "",
            os: root.text(of: "os") ?? "",
            requestorID: requestorID,
            requestorName: requestor.text(of: "name") ?? "",
            mvpds: mvpds
        )
    }

    private static func mvpd(from node: XMLNode) throws(PayloadFormatError) -> MVPDInfo {
        func required(_ name: String) throws(PayloadFormatError) -> String {
            guard let value = node.text(of: name) else {
                throw PayloadFormatError("missing element \(name) in an <mvpd> of requestor/mvpds")
            }
            return value
        }
        func flag(_ name: String, default value: Bool) throws(PayloadFormatError) -> Bool {
            guard let text = node.text(of: name) else { return value }
            switch text.lowercased() {
            case "true", "1": return true
            case "false", "0": return false
            default: throw PayloadFormatError("\(name) must be true or false, not \"\(text)\"")
            }
        }
        var ttl: Int?
        if let text = node.text(of: "authenticationTTLSeconds") {
            guard let value = Int(text) else {
                throw PayloadFormatError("authenticationTTLSeconds must be an integer, not \"\(text)\"")
            }
            ttl = value
        }
        return MVPDInfo(
            id: try required("id"),
            displayName: try required("displayName"),
            logoURL: try required("logoUrl"),
            passiveAuthnEnabled: try flag("passiveAuthnEnabled", default: true),
            authPerAggregator: try flag("authPerAggregator", default: false),
            enablePlatformServices: try flag("enablePlatformServices", default: false),
            requiresSVC: try flag("requiresSVC", default: false),
            authenticationTTLSeconds: ttl
        )
    }
}

extension XMLWriter {
    /// Writes one `<mvpd>` element of the configuration.
    fileprivate mutating func mvpd(_ mvpd: MVPDInfo) {
        element("mvpd") { xml in
            xml.element("id", mvpd.id)
            xml.element("displayName", mvpd.displayName)
            xml.element("logoUrl", mvpd.logoURL)
            xml.element("passiveAuthnEnabled", String(mvpd.passiveAuthnEnabled))
            xml.element("authPerAggregator", String(mvpd.authPerAggregator))
            xml.element("enablePlatformServices", String(mvpd.enablePlatformServices))
            xml.element("requiresSVC", String(mvpd.requiresSVC))
            xml.optionalElement("authenticationTTLSeconds", mvpd.authenticationTTLSeconds.map { String($0) })
        }
    }
}
