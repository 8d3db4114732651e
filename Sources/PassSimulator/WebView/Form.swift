import AccessEnabler
import Foundation
import PassProtocol

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
    /// The inputs a person types into (text, email, tel, or no type), in document order: on a login form the first is
    /// the user name, whatever the MVPD calls it (`username`, `j_username`, `IDToken1`, `UserName`).
    public var textInputNames: [String] = []
    /// The password inputs, in document order (`password`, `j_password`, `IDToken2`, `UserPassword`).
    public var passwordInputNames: [String] = []
    /// Whether the form has a submit control (a button, or `<input type="submit">`), named or not: a person can
    /// press it (an intermediate page's *Resume*, a `<noscript>` *Continue*).
    public var canBeSubmitted = false

    /// Whether the form has nothing to type into (only hidden or pre-filled fields): a relay or a *Resume* form.
    var isOnlyHidden: Bool { textInputNames.isEmpty && passwordInputNames.isEmpty }

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
            var textInputs: [String] = []
            var passwordInputs: [String] = []
            var submittable = !HTMLText.tags("button", in: body).isEmpty
            for input in HTMLText.tags("input", in: body) {
                let type = HTMLText.attribute("type", in: input)?.lowercased() ?? "text"
                if type == "submit" { submittable = true }
                guard let name = HTMLText.attribute("name", in: input) else { continue }
                names.append(name)
                switch type {
                case "password":
                    password = true
                    passwordInputs.append(name)
                case "text", "email", "tel", "": textInputs.append(name)
                default: break
                }
                if let value = HTMLText.attribute("value", in: input) { fields[name] = HTMLText.unescape(value) }
            }
            let buttons = HTMLText.tags("button", in: body).compactMap { tag -> (String, String)? in
                guard let name = HTMLText.attribute("name", in: tag) else { return nil }
                return (name, HTMLText.attribute("value", in: tag).map(HTMLText.unescape) ?? "")
            }
            let method = HTMLText.attribute("method", in: attributes)?.uppercased() ?? "GET"
            return Form(
                action: url, method: method, fields: fields, inputNames: names, buttons: buttons, hasPasswordField: password,
                textInputNames: textInputs, passwordInputNames: passwordInputs, canBeSubmitted: submittable)
        }
    }
}
