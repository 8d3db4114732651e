import PassProtocol
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

    @Test("a login form's user-name and password inputs are found by type, whatever the MVPD names them")
    func fieldsByType() throws {
        let html = """
            <form method="post" action="/mvpd/X/login"><input type="hidden" name="login" value="1">
            <input id="IDToken1" name="IDToken1" autocomplete="username"><input name="IDToken2" type="password">
            <input type="checkbox" name="remember" value="on"><input type="submit" value="Go"></form>
            """
        let form = try #require(Form.parse(html, base: Self.base).first)
        #expect(form.textInputNames == ["IDToken1"])
        #expect(form.passwordInputNames == ["IDToken2"])
        #expect(form.canBeSubmitted)
        #expect(!form.isOnlyHidden)
    }

    @Test("a page's script that submits a form names the form a WKWebView would post; forms to type into are never posted blind")
    func autoSubmittedForms() throws {
        func page(_ html: String) -> HeadlessWebView.Page { HeadlessWebView.Page(url: Self.base, status: 200, html: html) }
        let relay = """
            <form method="post" action="/a"><input type="hidden" name="SAMLResponse" value="x"></form>
            <form method="post" action="/b"><input type="hidden" name="SAMLRequest" value="PHg+"><input type="hidden" name="RelayState" value="r">
            <noscript><button type="submit">Continue</button></noscript></form>
            <script>window.onload = function () { document.forms[1].submit(); }</script>
            """
        let form = try #require(HeadlessWebView.autoSubmitted(page(relay)))
        #expect(form.action.path == "/b")
        #expect(form.fields == ["SAMLRequest": "PHg+", "RelayState": "r"])
        #expect(HeadlessWebView.autoSubmitted(page(relay.replacingOccurrences(of: "<script>", with: "<p>").replacingOccurrences(of: "</script>", with: "</p>"))) == nil,
            "submit() outside a script is text")
        let onload = #"<body onload="document.forms[0].submit()"><form method="post" action="/c"><input type="hidden" name="SAMLResponse" value="y"></form></body>"#
        #expect(HeadlessWebView.autoSubmitted(page(onload))?.action.path == "/c", "the body's onload runs too")
        let login = #"<form method="post" action="/l"><input name="u"><input name="p" type="password"></form><script>document.forms[0].submit()</script>"#
        #expect(HeadlessWebView.autoSubmitted(page(login)) == nil)
        // Without JavaScript, the relay is a page in between with one button to press.
        #expect(HeadlessWebView.pageStep(page(relay))?.action.path == "/b")
        let resume = #"<form method="post" action="/mvpd/X/resume"><input type="hidden" name="login" value="1"><button type="submit">Resume</button></form>"#
        #expect(HeadlessWebView.pageStep(page(resume))?.fields == ["login": "1"])
        let refused = #"<p role="alert">No.</p>"# + resume
        #expect(HeadlessWebView.pageStep(page(refused)) == nil, "a page with an error is not pressed through")
    }
}
