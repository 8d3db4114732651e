import Foundation
import PassProtocol

/// The one rule for what of an event may be kept: the SDK applies it before an event leaves (``EventBroadcaster``),
/// and the console applies it again to events other processes report (`POST /api/ingest`), so a reporter's password
/// field or full token never reaches the history. Idempotent: a redacted event comes back unchanged.
extension EntitlementEvent {
    /// The event with secrets hidden: passwords entirely; token bodies, authentication tokens and signatures keep only a
    /// prefix so a reader can tell them apart without being able to replay them. Pure.
    public func redacted() -> EntitlementEvent {
        var copy = self
        switch kind {
        case .httpExchange(var exchange):
            for key in exchange.parameters.keys where Self.isSecret(key) {
                exchange.parameters[key] = Self.redactSecret(named: key, exchange.parameters[key] ?? "")
            }
            for key in exchange.headers.keys where Self.secretHeaders.contains(key.lowercased()) {
                exchange.headers[key] = Self.shorten(exchange.headers[key] ?? "")
            }
            exchange.url = Self.redactQuery(exchange.url)
            exchange.responseBody = exchange.responseBody.map(Self.redactBody)
            copy.kind = .httpExchange(exchange: exchange)
        case .callback(.setToken(let token, let resource)):
            copy.kind = .callback(callback: .setToken(token: Self.shorten(token), resource: resource))
        case .apiCall(let method, var arguments):
            for (key, value) in arguments {
                arguments[key] = Self.isSecret(key) ? Self.redactSecret(named: key, value) : Self.redactBody(value)
            }
            copy.kind = .apiCall(method: method, arguments: arguments)
        case .error(let code, let message):
            copy.kind = .error(code: code, message: Self.redactBody(message))
        case .storageChanged(let domain, let change):
            copy.kind = .storageChanged(domain: domain, change: Self.redactBody(change))
        default: break
        }
        return copy
    }

    package static let secretParameters: Set<String> = [
        "authentication_token", "authz_token", "secret", "client_secret", "signature", "password", "software_statement",
        "access_token",
    ]
    package static let secretHeaders: Set<String> = ["authorization", "cookie", "set-cookie", "proxy-authorization"]

    /// Password fields of MVPD login pages whose names say nothing of it (OpenAM's `IDToken2`, beside `IDToken1`, the
    /// user name).
    package static let passwordFields: Set<String> = ["idtoken2"]

    /// Whether a form field, query item or argument named `name` holds a secret: one of ``secretParameters`` in any
    /// case, a SAML assertion (`SAMLResponse`), or a password (``isPassword(_:)``).
    package static func isSecret(_ name: String) -> Bool {
        let lower = name.lowercased()
        return secretParameters.contains(lower) || lower == "samlresponse" || isPassword(lower) || lower.contains("secret")
    }

    /// Whether the field named `name` (lowercased) is a password: any name with `password` or `passwd` in it
    /// (`user_password`, `j_password`, `UserPassword`), or one of ``passwordFields``.
    package static func isPassword(_ lower: String) -> Bool {
        lower.contains("password") || lower.contains("passwd") || passwordFields.contains(lower)
    }

    /// A secret field's value as kept: a password entirely hidden (a prefix of it is half a password), any other
    /// secret (a token, a signature, an assertion) shortened to a prefix that tells it apart.
    package static func redactSecret(named name: String, _ value: String) -> String {
        isPassword(name.lowercased()) ? "[redacted]" : shorten(value)
    }

    package static func shorten(_ secret: String) -> String {
        if secret == "[redacted]" || (secret.hasSuffix(" chars]") && secret.contains("…[redacted ")) { return secret }
        let count = secret.count
        return count <= 24 ? "[redacted]" : String(secret.prefix(16)) + "…[redacted \(count) chars]"
    }

    static let ignatureInfo = Array("ignatureInfo".utf8)
    static let base64Marker = Array("PHNpZ25hdHVyZUluZm8+".utf8)

    /// How a token starts wherever it is written: raw, XML-escaped, Base64 (REST's `serializedToken`), URL-encoded.
    package static let tokenMarkers = ["<signatureInfo>", "&lt;signatureInfo&gt;", "PHNpZ25hdHVyZUluZm8+", "%3CsignatureInfo%3E"]

    /// The body with any token in it cut off, at most 4000 characters, and the values of JSON secrets
    /// (``jsonSecretFields``: REST API v2's registration answers) shortened. Byte scans: this runs on every answer
    /// the SDK gets.
    package static func redactBody(_ body: String) -> String {
        var limited = body.utf8.count > 4000 && body.count > 4000 ? String(body.prefix(4000)) + "…" : body
        if jsonSecretMarkers.contains(where: { ByteSearch.contains($0, in: limited) }) { limited = redactJSONSecrets(limited) }
        // One byte scan rules out most bodies: every marker holds `ignatureInfo` but the Base64 one.
        guard ByteSearch.contains(ignatureInfo, in: limited) || ByteSearch.contains(base64Marker, in: limited) else { return limited }
        let starts = tokenMarkers.compactMap { HTMLText.range(of: $0, in: limited[...])?.lowerBound }
        guard let start = starts.min() else { return limited }
        return String(limited[..<start]) + "[token redacted]"
    }

    /// JSON fields whose string values are secrets: the client secret of `/o/client/register`, the access token of
    /// `/o/client/token`.
    package static let jsonSecretFields = ["client_secret", "access_token"]
    /// The fields' names with their closing quote, as bytes: a byte scan rules most bodies out.
    static let jsonSecretMarkers = jsonSecretFields.map { Array(($0 + "\"").utf8) }

    /// `text` with the string value of every ``jsonSecretFields`` member shortened (``shorten(_:)``).
    static func redactJSONSecrets(_ text: String) -> String {
        var result = text
        for field in jsonSecretFields {
            let key = "\"" + field + "\""
            var searchFrom = result.startIndex
            while let keyRange = result.range(of: key, range: searchFrom..<result.endIndex) {
                var index = keyRange.upperBound
                func skipSpaces() { while index < result.endIndex, result[index].isWhitespace { index = result.index(after: index) } }
                skipSpaces()
                guard index < result.endIndex, result[index] == ":" else { searchFrom = keyRange.upperBound; continue }
                index = result.index(after: index)
                skipSpaces()
                guard index < result.endIndex, result[index] == "\"" else { searchFrom = keyRange.upperBound; continue }
                let valueStart = result.index(after: index)
                var end = valueStart
                var escaped = false
                while end < result.endIndex {
                    let character = result[end]
                    if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { break }
                    end = result.index(after: end)
                }
                let value = String(result[valueStart..<end])
                let shortened = shorten(value)
                result.replaceSubrange(valueStart..<end, with: shortened)
                searchFrom = result.index(valueStart, offsetBy: shortened.count, limitedBy: result.endIndex) ?? result.endIndex
            }
        }
        return result
    }

    /// Whether a query's text may hold a secret's name (``isSecret(_:)``'s words, any case): false rules it out.
    static func mayNameSecret(_ query: Substring.UTF8View) -> Bool {
        // Bytes, ASCII-lowercased: Foundation's `contains` on a String was a visible share of recording an exchange.
        let lower = query.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
        // A percent-encoded name could spell any of them: parse those.
        return lower.contains(UInt8(ascii: "%")) || secretWords.contains { ByteSearch.contains($0, in: lower) }
    }

    static let secretWords: [[UInt8]] = ["token", "secret", "signature", "password", "passwd", "samlresponse", "idtoken2"]
        .map { Array($0.utf8) }

    /// The URL with secret query items shortened (a reporter may put a token in a GET's query).
    package static func redactQuery(_ url: String) -> String {
        // Foundation's URL parsing is the costly part, and most queries name no secret: a byte check first.
        guard let mark = url.utf8.firstIndex(of: UInt8(ascii: "?")), mayNameSecret(url.utf8[mark...]),
            var components = URLComponents(string: url),
            let items = components.queryItems, items.contains(where: { isSecret($0.name) })
        else { return url }
        components.queryItems = items.map {
            isSecret($0.name) ? URLQueryItem(name: $0.name, value: redactSecret(named: $0.name, $0.value ?? "")) : $0
        }
        return components.string ?? url
    }
}
