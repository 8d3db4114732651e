import Foundation
import Testing
import AccessEnabler
@testable import PassSimulator

/// The headless web view reads login pages it has never seen: forms in any letter case and attribute order, several
/// forms on a page, attributes whose names end other attributes' names.
@Suite("Web view form reading")
struct FormParsingTests {
    static let base = URL(string: "http://127.0.0.1:8081/mvpd/Dish/login?login=abc")!

    @Test("a login form: action resolved against the page, method, hidden and visible inputs, password, buttons")
    func loginForm() throws {
        let html = """
            <html><head><title>Dish &amp; co</title></head><body>
            <FORM Method="post" ACTION="/mvpd/Dish/login?x=1&amp;y=2" class="card">
              <input type="hidden" name="login" value="abc&quot;1">
              <label>User <INPUT name="username" autocomplete="username"></label>
              <input data-name="decoy" name="password" TYPE="Password"/>
              <button type="submit" name="action" value="signin">Sign in</button>
              <button name="action" value="cancel">Cancel</button>
              <button type="button">no name</button>
            </form></body></html>
            """
        let forms = Form.parse(html, base: Self.base)
        #expect(forms.count == 1)
        let form = try #require(forms.first)
        #expect(form.action.absoluteString == "http://127.0.0.1:8081/mvpd/Dish/login?x=1&y=2")
        #expect(form.method == "POST")
        #expect(form.fields == ["login": "abc\"1"])
        #expect(form.inputNames == ["login", "username", "password"])
        #expect(form.hasPasswordField)
        #expect(form.buttons.map(\.name) == ["action", "action"])
        #expect(form.buttons.map(\.value) == ["signin", "cancel"])
    }

    @Test("several forms each keep their own inputs; a form without action posts to the page; unclosed forms are not read")
    func severalForms() {
        let html = """
            <form><input name="q" value="news"></form>
            <formation>not a form</formation>
            <form method="get" action="https://other.example/next"><input name="token" value="t"><inputs name="no"></form>
            <form action="/never-closed"><input name="lost">
            """
        let forms = Form.parse(html, base: Self.base)
        #expect(forms.count == 2)
        #expect(forms.first?.action == Self.base)
        #expect(forms.first?.method == "GET")
        #expect(forms.first?.fields == ["q": "news"])
        #expect(forms.last?.action.absoluteString == "https://other.example/next")
        #expect(forms.last?.inputNames == ["token"])
        #expect(forms.last?.hasPasswordField == false)
    }

    @Test("an attribute is found only where its name starts a word, and text search ignores ASCII case")
    func attributes() {
        #expect(HTMLText.attribute("name", in: #" username="u" name="real""#[...]) == "real")
        #expect(HTMLText.attribute("value", in: #" name="x""#[...]) == nil)
        #expect(HTMLText.attribute("type", in: #" TYPE="password""#[...]) == "password")
        let text = "abc <META HTTP-EQUIV=\"refresh\">"[...]
        #expect(HTMLText.range(of: "http-equiv", in: text).map { String(text[$0]) } == "HTTP-EQUIV")
        #expect(HTMLText.range(of: "missing", in: text) == nil)
    }
}
