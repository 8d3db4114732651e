import Foundation
import MicroHTTP
import PassProtocol

/// The second-screen sign-in (spec §5.4.3 #5, §7): the browser entry `/api/v1/authenticate?reg_code=…` and the
/// activation page `/activate` where a person types the code their TV shows, picks a TV provider and signs in.
enum ActivationRoutes {
    static func register(in router: inout Router, service: BackendService) {
        router.get("/api/v1/authenticate") { request in try authenticate(request, service) }
        router.get("/activate") { request in activatePage(request, service) }
        router.post("/activate") { request in activatePage(request, service) }
        router.get("/activate/done") { request in donePage(request, service) }
    }

    /// Starts the MVPD login for a registration code; the session lands on the device that created the code. Every
    /// call is remembered as an ``ActivationAttempt``, refused or not.
    static func authenticate(_ request: Request, _ service: BackendService) throws -> Response {
        var attempt = ActivationAttempt(
            at: service.now(), code: (request.parameter("reg_code") ?? request.parameter("\u{AE}_code") ?? "").uppercased(),
            via: "authenticate", requestorID: request.parameter("requestor_id"), mvpdID: request.parameter("mso_id"),
            outcome: "accepted", detail: "The sign-in with the TV provider started.")
        do {
            let response = try startLogin(request, service)
            service.recordActivation(attempt)
            return response
        } catch let error as HTTPError {
            attempt.outcome = error.code
            attempt.detail = error.message
            service.recordActivation(attempt)
            throw error
        }
    }

    static func startLogin(_ request: Request, _ service: BackendService) throws -> Response {
        if request.parameter("reg_code") == nil, request.parameter("\u{AE}_code") != nil {
            throw HTTPError(.badRequest, code: "mangled_parameter", message: "The link says ®_code instead of reg_code: "
                + "something turned “&reg” into “®” (an HTML page that did not escape the ampersand).")
        }
        let code = try SDKRoutes.required(request, "reg_code")
        let requestorID = try SDKRoutes.required(request, "requestor_id")
        guard let record = service.regcode(code) else {
            throw HTTPError(.badRequest, code: "unknown_code", message: "No registration code \(code.uppercased()) exists here.")
        }
        guard record.code.requestor == requestorID else {
            throw HTTPError(.badRequest, code: "wrong_requestor", message: "The code \(record.code.code) belongs to "
                + "\(record.code.requestor), but the sign-in named \(requestorID) (another app or environment).")
        }
        guard record.expires > service.now() else {
            throw HTTPError(.badRequest, code: "expired", message: "The registration code \(record.code.code) has expired.")
        }
        guard let mvpdID = RESTCall.nonEmpty(request.parameter("mso_id")) ?? record.code.mvpd else {
            throw HTTPError(.badRequest, code: "missing_parameter", message: "The parameter mso_id is required.")
        }
        guard service.mvpd(mvpdID) != nil, service.integrates(requestorID, mvpdID) else {
            throw HTTPError(.badRequest, code: "unknown_mvpd", message: "The MVPD \(mvpdID) is not integrated with \(requestorID).")
        }
        if let domain = RESTCall.nonEmpty(request.parameter("domain_name")),
            let programmer = service.programmer(requestorID), !programmer.domains.contains(domain)
        {
            throw HTTPError(.badRequest, code: "unknown_domain", message: "The domain \(domain) is not registered for \(requestorID).")
        }
        let redirectURL = RESTCall.nonEmpty(request.parameter("redirect_url")) ?? "/activate/done?code=\(record.code.code)"
        return SPSignInRoutes.start(service.beginLogin(
            requestorID: requestorID, mvpdID: mvpdID, deviceID: record.code.info.deviceId, redirectURL: redirectURL,
            regcode: record.code.code), service)
    }

    /// Step 1: the code form. Step 2 (a valid code): the TV providers of the code's Programmer.
    static func activatePage(_ request: Request, _ service: BackendService) -> Response {
        guard let code = RESTCall.nonEmpty(request.parameter("code")?.trimmingCharacters(in: .whitespaces).uppercased()) else {
            return .html(codeForm(message: nil))
        }
        func attempt(_ outcome: String, _ detail: String, requestor: String? = nil) {
            service.recordActivation(ActivationAttempt(at: service.now(), code: code, via: "activation page",
                requestorID: requestor, mvpdID: nil, outcome: outcome, detail: detail))
        }
        guard let record = service.regcode(code) else {
            attempt("unknown_code", "Someone typed \(code), which is not a code this service made.")
            return .html(codeForm(message: "The code \(code) is not valid. Check the code on your TV and try again."), status: .notFound)
        }
        guard record.expires > service.now() else {
            attempt("expired", "Someone typed \(code) after it expired.", requestor: record.code.requestor)
            return .html(codeForm(message: "The code \(code) has expired. Ask your TV for a new code."), status: .gone)
        }
        attempt("code_accepted", "Someone typed the code; the TV providers were listed.", requestor: record.code.requestor)
        let requestorID = record.code.requestor
        let programmer = service.programmer(requestorID)?.name ?? requestorID
        let mvpds = (record.code.mvpd.map { [$0] } ?? service.programmer(requestorID)?.mvpds ?? []).compactMap(service.mvpd)
        let done = "/activate/done?code=\(record.code.code)"
        let links = mvpds.map { mvpd in
            let href = "/api/v1/authenticate?reg_code=\(record.code.code)&requestor_id=\(FormEncoding.escape(requestorID))"
                + "&mso_id=\(FormEncoding.escape(mvpd.id))&noflash=true&no_iframe=true&redirect_url=\(FormEncoding.escape(done))"
            return "<li><a class=\"provider\" href=\"\(HTMLPage.escape(href))\">\(HTMLPage.escape(mvpd.displayName))</a></li>"
        }.joined()
        let body = """
            <p class="ok">Code <strong>\(HTMLPage.escape(record.code.code))</strong> is valid for \(HTMLPage.escape(programmer)).</p>
            <p>Choose your TV provider to sign in:</p><ul class="providers">\(links)</ul>
            """
        return .html(HTMLPage.page(title: "Choose your TV provider", heading: "Choose your TV provider", body: body))
    }

    /// Where the sign-in ends: success ("return to your TV") or the reason it did not work.
    static func donePage(_ request: Request, _ service: BackendService) -> Response {
        let code = request.parameter("code") ?? ""
        if let error = request.parameter("error") {
            let reason = error == "user_cancelled" ? "You cancelled the sign-in." : "The sign-in did not finish (\(error))."
            let body = HTMLPage.alert(reason) + "<p><a href=\"/activate?code=\(HTMLPage.escape(code))\">Try again</a></p>"
            return .html(HTMLPage.page(title: "Not signed in", heading: "Not signed in", body: body))
        }
        guard let record = service.regcode(code), let session = service.session(for: record), !session.revoked else {
            return .html(HTMLPage.page(title: "Not signed in", heading: "Not signed in",
                body: HTMLPage.alert("No sign-in was found for code \(code).")), status: .notFound)
        }
        let mvpd = service.mvpd(session.mvpdID)?.displayName ?? session.mvpdID
        let body = "<p class=\"ok\" role=\"status\">You are signed in with \(HTMLPage.escape(mvpd)). Return to your TV: it will continue on its own.</p>"
        return .html(HTMLPage.page(title: "Signed in", heading: "Success", body: body))
    }

    static func codeForm(message: String?) -> String {
        let body = """
            <p class="note">Your TV shows a 7-character code. Type it here to sign in with your TV provider.</p>
            \(HTMLPage.alert(message))
            <form method="post" action="/activate">
            <label for="code">Activation code</label>
            <input id="code" name="code" autocomplete="one-time-code" autocapitalize="characters" maxlength="12" required>
            <div class="actions"><button class="primary" type="submit">Continue</button></div>
            </form>
            """
        return HTMLPage.page(title: "Activate your device", heading: "Activate your device", body: body)
    }
}
