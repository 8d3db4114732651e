import Foundation
import MicroHTTP
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// The web variant from a real browser (issue 17 A.5): a Programmer's page on another origin, a plain JS client in
/// headless Chromium, registers the browser (reading the exposed `pass_sfp` header), the person signs in through
/// `authenticate/saml?reg_code=…` and whatever pages the MVPD shows (Chromium runs them; the test only fills the
/// credential form), and back on the page the client calls `session`, `authorize`, `shortAuthorize` with the `ap_*`
/// and `pass_sfp` headers — every call cross-origin, so the preflight and credentials rules are exercised for real.
@Suite(.serialized, .enabled(if: WebDriver.isAvailable, "needs chromium and chromium-driver (make test installs them)"))
struct WebVariantBrowserTests {
    /// The Programmer's site: one page, the JS client, at `/watch` (registers the browser) and `/done` (plays).
    struct ProgrammerSite: HTTPResponder {
        func respond(to request: Request) async -> Response { .html(Self.page) }

        static let page = #"""
            <!doctype html><html><head><title>Reference Network</title></head><body><pre id="out"></pre><script>
            const q = new URLSearchParams(location.search);
            const B = q.get('backend');
            const H = { 'ap_42': 'anonymous', 'ap_11': 'Linux x86_64', 'ap_z': navigator.userAgent };
            function text(xml, tag) {
              const m = (xml || '').match(new RegExp('<' + tag + '>([\\s\\S]*?)</' + tag + '>'));
              if (!m) return null;
              const t = document.createElement('textarea'); t.innerHTML = m[1]; return t.value;
            }
            async function post(path, form) {
              const device = JSON.parse(localStorage.getItem('device') || '{}');
              const headers = Object.assign({ 'Content-Type': 'application/x-www-form-urlencoded' }, H,
                device.id ? { 'ap_21': device.id, 'pass_sfp': device.sfp } : {});
              const r = await fetch(B + path, { method: 'POST', body: new URLSearchParams(form), headers, credentials: 'include' });
              return { status: r.status, body: await r.text(), code: r.headers.get('Authzf-Error-Code') };
            }
            async function register() {
              const r = await fetch(B + '/indiv/devices', { method: 'POST', headers: { 'Content-Type': 'application/json' },
                body: JSON.stringify({ fingerprint: 'chromium-page' }), credentials: 'include' });
              const json = await r.json();
              const device = { id: json.deviceId, sfp: r.headers.get('pass_sfp') };
              localStorage.setItem('device', JSON.stringify(device));
              return device;
            }
            async function play() {
              const s = await post('/adobe-services/session', { _method: 'GET', requestor_id: 'REF30', reg_code: q.get('code') });
              const authn = text(s.body, 'authnToken');
              const a = await post('/adobe-services/authorize', { resource_id: 'news', requestor_id: 'REF30',
                authentication_token: authn, mso_id: text(authn, 'simpleTokenMsoID'), userMeta: '1' });
              const authz = text(a.body, 'authzToken');
              H['ap_19'] = text(authn, 'simpleSamlNameID'); H['ap_23'] = text(authn, 'simpleSamlSessionIndex');
              const m = await post('/adobe-services/shortAuthorize', { authz_token: authz, requestor_id: 'REF30',
                session_guid: text(authn, 'simpleTokenAuthenticationGuid'), hashed_guid: 'false' });
              const d = await post('/adobe-services/authorize', { resource_id: 'movies', requestor_id: 'REF30',
                authentication_token: authn, userMeta: '1' });
              return { session: s.status, authorize: a.status, media: m.status, token: m.body,
                refusal: text(d.body, 'details'), refusalStatus: d.status, refusalCode: d.code };
            }
            (location.pathname === '/done' ? play() : register())
              .then(r => { window.passResult = r; document.getElementById("out").textContent = JSON.stringify(r); })
              .catch(e => { window.passResult = { error: String(e) }; });
            </script></body></html>
            """#
    }

    /// Fills the MVPD's credential form, whatever its field names, and submits it with its non-cancel button.
    static let fillCredentials = """
        const password = document.querySelector('input[type=password]');
        const form = password.form;
        const user = [...form.querySelectorAll('input')]
          .find(i => !['hidden', 'password', 'submit', 'checkbox', 'radio', 'button'].includes(i.type));
        user.value = arguments[0]; password.value = arguments[1];
        const submit = [...form.querySelectorAll('button, input[type=submit]')]
          .find(b => b.type === 'submit' && !/cancel/i.test((b.value || '') + b.textContent));
        form.requestSubmit(submit);
        """

    @Test func aPageOnAnotherOriginSignsInAndGetsAMediaTokenInChromium() async throws {
        try await BackendFixture.with { service, client async throws in
            try await TestServer.with(ProgrammerSite()) { site, _ async throws in
                let backend = TestHTTPClient.escape(client.baseURL)
                #expect(site.baseURL != client.baseURL, "the page and the backend are different origins")
                let browser = try await WebDriver.start()
                do {
                    try await browser.open("\(site.baseURL)/watch?backend=\(backend)")
                    try await browser.waitUntil("the browser's registration", "return window.passResult != null;")
                    let device = try #require(try await browser.run("return window.passResult;") as? [String: Any])
                    try #require(device["error"] == nil, "\(device)")
                    let deviceID = try #require(device["id"] as? String)
                    #expect(!((device["sfp"] as? String) ?? "").isEmpty, "the page can read pass_sfp")

                    // The Programmer's server gets a registration code for the browser's device.
                    let code = try await RESTApp(client: client, service: service).regcode(device: deviceID)
                    let done = "\(site.baseURL)/done?backend=\(backend)&code=\(code)"
                    try await browser.open(
                        "\(client.baseURL)/adobe-services/authenticate/saml?noflash=true&mso_id=Cablevision"
                            + "&requestor_id=REF30&domain_name=adobe.com&redirect_url=\(TestHTTPClient.escape(done))&reg_code=\(code)"
                    )
                    try await browser.waitFor("input[type=password]")
                    try await browser.run(Self.fillCredentials, ["alice", "alice123"])
                    // Optimum answers with a page in between (its *Resume* button), as a person sees it: press it.
                    try await browser.waitUntil(
                        "the page's playback calls", timeout: 30,
                        """
                        if (location.pathname === '/done' && window.passResult != null) return true;
                        const resume = [...document.querySelectorAll('button, input[type=submit]')]
                          .find(b => /resume/i.test((b.value || '') + b.textContent));
                        if (resume && !window.resumePressed) { window.resumePressed = true; resume.click(); }
                        return false;
                        """)
                    let result = try #require(try await browser.run("return window.passResult;") as? [String: Any])
                    #expect(result["error"] == nil, "\(result)")
                    #expect(result["session"] as? Int == 200)
                    #expect(result["authorize"] as? Int == 200)
                    #expect(result["media"] as? Int == 200)
                    let token = try #require(result["token"] as? String)
                    let (verdict, media) = service.verifyMediaToken(token, resourceID: "news")
                    #expect(verdict == .validToken)
                    #expect(media?.body.mvpdID == "Cablevision")
                    #expect((result["refusal"] as? String)?.contains("movies") == true)
                    #expect(result["refusalStatus"] as? Int == 200)
                    #expect(
                        result["refusalCode"] as? String == "user_not_authorized", "the page can read Authzf-Error-Code"
                    )
                    #expect(service.sessions.map(\.deviceID) == [deviceID])
                } catch {
                    await browser.quit()
                    throw error
                }
                await browser.quit()
            }
        }
    }
}
