import AccessEnabler
import Foundation

/// An HTML form as the headless web view sees it: where it goes, how, its pre-filled fields and its buttons.
public struct Form: Sendable, Equatable {
    /// Where the form is submitted (resolved against the page's URL).
    public var action: URL
    /// `GET` or `POST`.
    public var method: String
    /// Hidden and pre-filled inputs.
    public var fields: [String: String]
    /// Every input name (text, password, hidden).
    public var inputNames: [String]
    /// Submit buttons as name/value.
    public var buttons: [(name: String, value: String)]
    /// Whether the form has a password input (a login form).
    public var hasPasswordField: Bool

    /// Same action, method, fields, inputs and buttons.
    public static func == (a: Form, b: Form) -> Bool {
        a.action == b.action && a.method == b.method && a.fields == b.fields && a.inputNames == b.inputNames
            && a.buttons.map(\.name) == b.buttons.map(\.name) && a.buttons.map(\.value) == b.buttons.map(\.value)
    }

    static func parse(_ html: String, base: URL) -> [Form] {
        HTMLText.elements("form", in: html[...]).compactMap { attributes, body in
            let action = HTMLText.attribute("action", in: attributes).map(HTMLText.unescape) ?? base.absoluteString
            guard let url = URL(string: action, relativeTo: base)?.absoluteURL else { return nil }
            var fields: [String: String] = [:]
            var names: [String] = []
            var password = false
            for input in HTMLText.tags("input", in: body) {
                guard let name = HTMLText.attribute("name", in: input) else { continue }
                names.append(name)
                let type = HTMLText.attribute("type", in: input)?.lowercased() ?? "text"
                if type == "password" { password = true }
                if let value = HTMLText.attribute("value", in: input) { fields[name] = HTMLText.unescape(value) }
            }
            let buttons = HTMLText.tags("button", in: body).compactMap { tag -> (String, String)? in
                guard let name = HTMLText.attribute("name", in: tag) else { return nil }
                return (name, HTMLText.attribute("value", in: tag).map(HTMLText.unescape) ?? "")
            }
            let method = HTMLText.attribute("method", in: attributes)?.uppercased() ?? "GET"
            return Form(action: url, method: method, fields: fields, inputNames: names, buttons: buttons, hasPasswordField: password)
        }
    }
}
