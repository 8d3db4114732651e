import Foundation

extension EntitlementEvent {
    /// A one-line description for lists and text search, e.g. `callback setAuthenticationStatus(1)` or
    /// `GET …/config/REF30 → 200 (12 ms)`. Stored in the `summary` column; `LIKE` filters search it.
    public var summary: String {
        switch kind {
        case .apiCall(let method, let arguments):
            return "call \(method.rawValue)(\(Self.list(arguments)))"
        case .stateChanged(let flow, let from, let to):
            return "\(flow.rawValue): \(from.rawValue) → \(to.rawValue)"
        case .httpExchange(let exchange):
            let outcome = exchange.status.map(String.init) ?? "failed: \(exchange.failure ?? "no answer")"
            return "\(exchange.method) \(Self.shortURL(exchange.url)) → \(outcome) (\(Int(exchange.durationMs.rounded())) ms)"
        case .storageChanged(let domain, let change):
            return "storage \(domain): \(change)"
        case .callback(let callback):
            return "callback \(callback.name)(\(Self.arguments(of: callback)))"
        case .tracking(let event, let data):
            return "tracking \(event.rawValue) [\(data.joined(separator: ", "))]"
        case .error(let code, let message):
            return "error \(code): \(message)"
        }
    }

    /// The callback's main arguments, short.
    static func arguments(of callback: EntitlementCallback) -> String {
        switch callback {
        case .setRequestorComplete(let status): "\(status)"
        case .setAuthenticationStatus(let status, let errorCode):
            [String(status), errorCode].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ", ")
        case .displayProviderDialog(let mvpds): "\(mvpds.count) MVPDs"
        case .navigateToUrl(let url, _): shortURL(url)
        case .setToken(_, let resource): resource
        case .tokenRequestFailed(let resource, let errorCode, _): "\(resource), \(errorCode)"
        case .selectedProvider(let mvpd): mvpd?.ID ?? "none"
        case .sendTrackingData(let event, _): event.rawValue
        case .setMetadataStatus(_, _, let key, _): "\(key)"
        case .preauthorizedResources(let resources): resources.joined(separator: ", ")
        case .presentTvProviderDialog, .dismissTvProviderDialog: ""
        case .status(let dictionary): list(dictionary)
        }
    }

    /// `key=value` pairs in key order.
    static func list(_ arguments: [String: String]) -> String {
        arguments.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
    }

    /// The URL without scheme, host and query: `…/api/v1/config/REF30`.
    ///
    /// Plain http(s) URLs (the SDK's requests) are cut by a byte scan; anything else goes through `URLComponents`,
    /// whose answer the scan reproduces (a summary is made for every stored event, and `URLComponents` was most of it).
    static func shortURL(_ url: String) -> String {
        if let path = plainHTTPPath(url) { return "…" + path }
        guard let components = URLComponents(string: url), components.host != nil else { return url }
        return "…" + components.path
    }

    /// The path of an `http://` or `https://` URL made only of characters `URLComponents` takes as they are (no `%`
    /// escapes, no brackets, nothing it would refuse), with a host; `nil` for any other URL.
    static func plainHTTPPath(_ url: String) -> Substring? {
        let utf8 = url.utf8
        let prefix = utf8.starts(with: "http://".utf8) ? 7 : utf8.starts(with: "https://".utf8) ? 8 : 0
        guard prefix > 0, utf8.allSatisfy(isPlainURLByte) else { return nil }
        let authorityStart = utf8.index(utf8.startIndex, offsetBy: prefix)
        let pathStart = utf8[authorityStart...].firstIndex { $0 == 0x2F || $0 == 0x3F || $0 == 0x23 } ?? utf8.endIndex  // / ? #
        guard isPlainAuthority(url[authorityStart..<pathStart]) else { return nil }
        let pathEnd = utf8[pathStart...].firstIndex { $0 == 0x3F || $0 == 0x23 } ?? utf8.endIndex
        return url[pathStart..<pathEnd]
    }

    /// A host name (letters, digits, `-`, `.`) with an optional numeric port; user info, IPv6 literals, an empty
    /// host or port are left to `URLComponents`.
    private static func isPlainAuthority(_ authority: Substring) -> Bool {
        let parts = authority.utf8.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard let host = parts.first, !host.isEmpty, parts.count <= 2 else { return false }
        let isHostByte = { (byte: UInt8) in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D || byte == 0x2E
        }
        guard host.allSatisfy(isHostByte) else { return false }
        guard parts.count == 2 else { return true }
        return !parts[1].isEmpty && parts[1].count <= 5 && parts[1].allSatisfy { (0x30...0x39).contains($0) }
    }

    /// Letters, digits and the URL punctuation `URLComponents` accepts unescaped, minus `%`, `[` and `]`.
    private static func isPlainURLByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: ":"), UInt8(ascii: "/"),
            UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "@"), UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","),
            UInt8(ascii: ";"), UInt8(ascii: "="):
            true
        default: false
        }
    }
}
