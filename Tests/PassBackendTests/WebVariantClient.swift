import Foundation
import PassTestSupport
import Testing

/// A browser-based client of the web variant (spec §5.2.7), written from what yt-dlp's Adobe Pass extractor sends:
/// it registers the browser (`/indiv/devices`), registers itself (DCR), gets a registration code, signs in through
/// `authenticate/saml?reg_code=…` and whatever pages the MVPD shows (filling forms generically), then calls `session`,
/// `authorize` and `shortAuthorize` with the `ap_*`/`pass_sfp` headers, caching the tokens it gets as yt-dlp does.
/// It reads the answers with regular expressions, as such clients do, not with PassProtocol's parsers.
struct WebVariantClient {
    let http: TestHTTPClient
    var requestor = "REF30"
    /// The cookies the backend set (name → value).
    var cookies: [String: String] = [:]
    /// The headers sent with every `adobe-services` call.
    var headers: [String: String] = [
        "ap_42": "anonymous", "ap_11": "Linux i686", "ap_z": Self.userAgent, "User-Agent": Self.userAgent,
    ]
    /// Send the cookies the backend set.
    var sendsCookies = true
    var deviceID = ""
    /// The cached authN token and authZ tokens per resource (yt-dlp's `ap-mvpd` cache).
    var authn: String?
    var authz: [String: String] = [:]
    /// Every call this client made, as `METHOD path`.
    var calls: [String] = []

    static let userAgent = "Mozilla/5.0 (X11; Linux i686; rv:47.0) Gecko/20100101 Firefox/47.0"

    // MARK: - HTTP with cookies

    mutating func send(
        _ method: String, _ url: String, form: [(String, String)]? = nil, json: Data? = nil,
        extra: [String: String] = [:]
    ) async throws -> HTTPResult {
        var all = extra
        if sendsCookies, !cookies.isEmpty {
            all["Cookie"] = cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
        }
        let path = url.hasPrefix(http.baseURL) ? String(url.dropFirst(http.baseURL.count)) : url
        calls.append("\(method) \(path.split(separator: "?").first.map(String.init) ?? path)")
        let result: HTTPResult
        if let form {
            result = try await http.post(url, form: form, headers: all)
        } else if let json {
            result = try await http.post(url, json: json, headers: all)
        } else {
            result = try await http.send(method, url, headers: all)
        }
        for cookie in result.setCookies {
            let pair = cookie.split(separator: ";").first.map(String.init) ?? ""
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            if cookie.contains("Max-Age=0") { cookies[parts[0]] = nil } else { cookies[parts[0]] = parts[1] }
        }
        return result
    }

    // MARK: - Registration

    /// `POST /indiv/devices`; keeps the device ID (`ap_21`) and the `pass_sfp` header.
    mutating func registerDevice(fingerprint: String = UUID().uuidString) async throws -> HTTPResult {
        let body = try JSONSerialization.data(withJSONObject: ["fingerprint": fingerprint])
        let answer = try await send("POST", "/indiv/devices", json: body)
        if answer.status == 200, let id = answer.json["deviceId"] as? String {
            deviceID = id
            headers["Ap_21"] = id
            headers["pass_sfp"] = answer.header("pass_sfp")
        }
        return answer
    }

    /// Dynamic client registration with the app's software statement; returns the bearer token.
    mutating func registerClient(statement: String = "demo-software-statement") async throws -> String {
        let registered = try await send(
            "POST", "/o/client/register",
            json: Data(#"{"software_statement":"\#(statement)"}"#.utf8))
        try #require(registered.status == 201, "register: \(registered.text)")
        let token = try await send(
            "POST", "/o/client/token",
            form: [
                ("grant_type", "client_credentials"), ("client_id", registered.json["client_id"] as? String ?? ""),
                ("client_secret", registered.json["client_secret"] as? String ?? ""),
            ])
        try #require(token.status == 201, "token: \(token.text)")
        let access = try #require(token.json["access_token"] as? String)
        headers["Authorization"] = "Bearer \(access)"
        return access
    }

    /// `POST /reggie/v1/{requestor}/regcode` for this device, as yt-dlp sends it.
    mutating func regcode() async throws -> String {
        let answer = try await send(
            "POST", "/reggie/v1/\(requestor)/regcode",
            form: [("requestor", requestor), ("deviceId", deviceID), ("format", "json")],
            extra: ["Authorization": headers["Authorization"] ?? ""])
        try #require(answer.status == 201, "regcode: \(answer.status) \(answer.text)")
        return try #require(answer.json["code"] as? String)
    }

    // MARK: - Sign-in through the MVPD's pages

    /// `authenticate/saml` with the registration code, then the MVPD's pages until the browser leaves the backend
    /// (the Programmer's `redirect_url`). Returns that URL, or nil when the pages ended elsewhere.
    mutating func signIn(
        mvpd: String, username: String, password: String, regcode: String,
        redirect: String = "https://www.reference.example/watch/1"
    ) async throws -> String? {
        let query = [
            ("noflash", "true"), ("mso_id", mvpd), ("requestor_id", requestor), ("no_iframe", "false"),
            ("domain_name", "adobe.com"), ("redirect_url", redirect), ("reg_code", regcode),
        ]
        let start =
            "/adobe-services/authenticate/saml?"
            + query.map { "\($0.0)=\(TestHTTPClient.escape($0.1))" }.joined(separator: "&")
        return try await browse(start, username: username, password: password)
    }

    /// Follows redirects, meta refreshes and self-submitting forms, fills the first form with a password field, and
    /// stops when the next URL leaves the backend.
    mutating func browse(_ start: String, username: String, password: String) async throws -> String? {
        var answer = try await send("GET", start)
        var filled = false
        for _ in 0..<20 {
            if (300..<400).contains(answer.status), let location = answer.header("Location") {
                guard let next = onBackend(location) else { return location }
                answer = try await send("GET", next)
                continue
            }
            guard answer.status == 200 else { return nil }
            let page = HTMLForms(answer.text)
            if let refresh = page.metaRefresh {
                guard let next = onBackend(refresh) else { return refresh }
                answer = try await send("GET", next)
                continue
            }
            guard let form = page.forms.first else { return nil }
            var fields = form.hidden
            if form.hasPassword {
                guard !filled else { return nil }  // the form came back: wrong credentials
                filled = true
                if let user = form.textFields.first { fields.append((user, username)) }
                fields.append((form.passwordField ?? "password", password))
            }
            if let button = form.submitButtons.first(where: { !$0.value.lowercased().contains("cancel") }) {
                fields.append((button.name, button.value))
            }
            guard let action = onBackend(form.action) else { return form.action }
            answer =
                form.method == "get"
                ? try await send(
                    "GET",
                    action + "?"
                        + fields.map { "\(TestHTTPClient.escape($0.0))=\(TestHTTPClient.escape($0.1))" }.joined(
                            separator: "&"))
                : try await send("POST", action, form: fields)
        }
        Issue.record("the sign-in pages did not end within 20 steps")
        return nil
    }

    /// A URL the browser would load from the backend (relative, or absolute on its host); nil when it leaves it.
    func onBackend(_ url: String) -> String? {
        if url.hasPrefix("/") { return url }
        if url.hasPrefix(http.baseURL) { return url }
        return nil
    }

    // MARK: - The adobe-services calls

    mutating func session(regcode: String? = nil) async throws -> HTTPResult {
        var form = [("_method", "GET"), ("requestor_id", requestor)]
        if let regcode { form.append(("reg_code", regcode)) }
        return try await send("POST", "/adobe-services/session", form: form, extra: headers)
    }

    mutating func authorize(resource: String, authn: String) async throws -> HTTPResult {
        try await send(
            "POST", "/adobe-services/authorize",
            form: [
                ("resource_id", resource), ("requestor_id", requestor), ("authentication_token", authn),
                ("mso_id", Self.xmlText(authn, "simpleTokenMsoID") ?? ""), ("userMeta", "1"),
            ], extra: headers)
    }

    mutating func shortAuthorize(authz: String, authn: String) async throws -> HTTPResult {
        var extra = headers
        extra["ap_19"] = Self.xmlText(authn, "simpleSamlNameID")
        extra["ap_23"] = Self.xmlText(authn, "simpleSamlSessionIndex")
        return try await send(
            "POST", "/adobe-services/shortAuthorize",
            form: [
                ("authz_token", authz), ("requestor_id", requestor),
                ("session_guid", Self.xmlText(authn, "simpleTokenAuthenticationGuid") ?? ""), ("hashed_guid", "false"),
            ], extra: extra)
    }

    /// yt-dlp's loop: use the cached tokens, fetch what is missing, and on `<pendingLogout` wipe the cache and go
    /// round once more. `signIn` runs when there is no authN token. Returns the media token, or the `<error>`'s details.
    mutating func mediaToken(resource: String, signIn: (inout WebVariantClient) async throws -> Void) async throws
        -> Result<String, WebClientError>
    {
        for _ in 0..<2 {
            if authn == nil {
                try await signIn(&self)
                let session = try await session()
                if session.text.contains("<pendingLogout") { wipe(); continue }
                guard session.status == 200, let token = Self.xmlText(session.text, "authnToken") else {
                    return .failure(.http(session.status, session.text))
                }
                authn = token
            }
            let authn = authn ?? ""
            if authz[resource] == nil {
                let answer = try await authorize(resource: resource, authn: authn)
                if answer.text.contains("<pendingLogout") { wipe(); continue }
                guard answer.status == 200 else { return .failure(.http(answer.status, answer.text)) }
                if answer.text.contains("<error") {
                    return .failure(.refused(Self.xmlText(answer.text, "details") ?? ""))
                }
                authz[resource] = Self.xmlText(answer.text, "authzToken")
            }
            let media = try await shortAuthorize(authz: authz[resource] ?? "", authn: authn)
            if media.text.contains("<pendingLogout") { wipe(); continue }
            guard media.status == 200 else { return .failure(.http(media.status, media.text)) }
            return .success(media.text)
        }
        return .failure(.gaveUp)
    }

    mutating func wipe() {
        authn = nil
        authz = [:]
    }

    /// The unescaped text of the first `<tag>…</tag>`.
    static func xmlText(_ text: String, _ tag: String) -> String? {
        guard let start = text.range(of: "<\(tag)>"),
            let end = text.range(of: "</\(tag)>", range: start.upperBound..<text.endIndex)
        else { return nil }
        return HTMLForms.unescape(String(text[start.upperBound..<end.lowerBound]))
    }
}

enum WebClientError: Error, Equatable {
    case http(Int, String)
    case refused(String)
    case gaveUp
}

/// The forms and meta refresh of an HTML page, read with regular expressions as scraping clients do.
struct HTMLForms {
    struct Button { var name: String; var value: String }
    struct Form {
        var method: String
        var action: String
        var hidden: [(String, String)] = []
        var textFields: [String] = []
        var passwordField: String?
        var submitButtons: [Button] = []
        var hasPassword: Bool { passwordField != nil }
    }

    var forms: [Form] = []
    var metaRefresh: String?

    init(_ html: String) {
        if let meta = Self.matches(html, #"<meta\s[^>]*http-equiv=["']?refresh["']?[^>]*>"#).first,
            let content = Self.attributes(meta)["content"],
            let range = content.range(of: "url=", options: .caseInsensitive)
        {
            metaRefresh = String(content[range.upperBound...]).trimmingCharacters(
                in: CharacterSet(charactersIn: "'\" "))
        }
        for block in Self.matches(html, #"<form\b[\s\S]*?</form>"#) {
            let tag = Self.matches(block, #"<form\b[^>]*>"#).first ?? ""
            let attributes = Self.attributes(tag)
            var form = Form(method: (attributes["method"] ?? "get").lowercased(), action: attributes["action"] ?? "")
            for input in Self.matches(block, #"<input\b[^>]*>"#) {
                let a = Self.attributes(input)
                guard let name = a["name"] else { continue }
                switch (a["type"] ?? "text").lowercased() {
                case "hidden": form.hidden.append((name, a["value"] ?? ""))
                case "password": form.passwordField = name
                case "submit": form.submitButtons.append(Button(name: name, value: a["value"] ?? ""))
                case "checkbox", "radio", "button", "reset", "image": break
                default: form.textFields.append(name)
                }
            }
            for button in Self.matches(block, #"<button\b[^>]*>"#) {
                let a = Self.attributes(button)
                guard (a["type"] ?? "submit").lowercased() == "submit", let name = a["name"] else { continue }
                form.submitButtons.append(Button(name: name, value: a["value"] ?? ""))
            }
            forms.append(form)
        }
    }

    static func matches(_ text: String, _ pattern: String) -> [String] {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]) else { return [] }
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range, in: text).map { String(text[$0]) }
        }
    }

    /// The attributes of one tag, values unescaped (`name` alone counts as `name=""`).
    static func attributes(_ tag: String) -> [String: String] {
        guard
            let regex = try? NSRegularExpression(
                pattern: #"([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?"#)
        else { return [:] }
        var result: [String: String] = [:]
        let inner = String(tag.dropFirst().drop { $0 != " " && $0 != "\t" && $0 != "\n" })
        for match in regex.matches(in: inner, range: NSRange(inner.startIndex..., in: inner)) {
            guard let nameRange = Range(match.range(at: 1), in: inner) else { continue }
            let value = (2...4).lazy.compactMap { Range(match.range(at: $0), in: inner) }.first.map {
                String(inner[$0])
            }
            result[String(inner[nameRange]).lowercased()] = unescape(value ?? "")
        }
        return result
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&#x27;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
    }
}
