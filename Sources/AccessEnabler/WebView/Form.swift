import Foundation

/// An HTML form as the headless web view sees it: where it goes, how, its pre-filled fields and its buttons.
public struct Form: Sendable, Equatable {
    public var action: URL
    public var method: String
    /// Hidden and pre-filled inputs.
    public var fields: [String: String]
    /// Every input name (text, password, hidden).
    public var inputNames: [String]
    /// Submit buttons as name/value.
    public var buttons: [(name: String, value: String)]
    public var hasPasswordField: Bool

    public static func == (a: Form, b: Form) -> Bool {
        a.action == b.action && a.method == b.method && a.fields == b.fields && a.inputNames == b.inputNames
            && a.buttons.map(\.name) == b.buttons.map(\.name) && a.buttons.map(\.value) == b.buttons.map(\.value)
    }

    static func parse(_ html: String, base: URL) -> [Form] {
        HTMLText.matches(html, #"(?s)<form([^>]*)>(.*?)</form>"#).compactMap { groups in
            let attributes = groups[0], body = groups[1]
            let action = HTMLText.attribute("action", in: attributes).map(HTMLText.unescape) ?? base.absoluteString
            guard let url = URL(string: action, relativeTo: base)?.absoluteURL else { return nil }
            var fields: [String: String] = [:]
            var names: [String] = []
            var password = false
            for input in HTMLText.matches(body, #"<input([^>]*)>"#).map({ $0[0] }) {
                guard let name = HTMLText.attribute("name", in: input) else { continue }
                names.append(name)
                let type = HTMLText.attribute("type", in: input)?.lowercased() ?? "text"
                if type == "password" { password = true }
                if let value = HTMLText.attribute("value", in: input) { fields[name] = HTMLText.unescape(value) }
            }
            let buttons = HTMLText.matches(body, #"<button([^>]*)>"#).compactMap { groups -> (String, String)? in
                guard let name = HTMLText.attribute("name", in: groups[0]) else { return nil }
                return (name, HTMLText.attribute("value", in: groups[0]).map(HTMLText.unescape) ?? "")
            }
            let method = HTMLText.attribute("method", in: attributes)?.uppercased() ?? "GET"
            return Form(action: url, method: method, fields: fields, inputNames: names, buttons: buttons, hasPasswordField: password)
        }
    }
}

/// Small text helpers for the headless web view's HTML reading.
enum HTMLText {
    static func matches(_ text: String, _ pattern: String) -> [[String]] {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]) else { return [] }
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
            (1..<match.numberOfRanges).map { index in
                Range(match.range(at: index), in: text).map { String(text[$0]) } ?? ""
            }
        }
    }

    static func firstMatch(_ text: String, _ pattern: String) -> String? { matches(text, pattern).first?.first }

    static func attribute(_ name: String, in tag: String) -> String? {
        firstMatch(tag, #"\b\#(name)="([^"]*)""#)
    }

    static func unescape(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        return text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    static func formEscape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
