import PassProtocol

/// Small, self-contained HTML pages for the MVPD login/logout screens and the activation page.
enum HTMLPage {
    /// Escapes text for HTML content and attribute values.
    static func escape(_ text: String) -> String { XMLEscaping.escape(text) }

    /// A full page with a title, a heading and body markup (already escaped by the caller); `head` is extra markup
    /// for the head (a meta refresh).
    static func page(title: String, heading: String, body: String, head: String = "") -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        \(head)<title>\(escape(title))</title>
        <style>
        body{font-family:system-ui,sans-serif;background:#f4f5f7;color:#1d2330;margin:0;display:flex;justify-content:center}
        main{background:#fff;margin:3rem 1rem;padding:2rem;border-radius:10px;box-shadow:0 1px 4px #0002;max-width:26rem;width:100%}
        h1{font-size:1.4rem;margin-top:0} label{display:block;margin:.8rem 0 .3rem;font-weight:600}
        input,select{width:100%;padding:.55rem;font-size:1rem;border:1px solid #99a;border-radius:6px;box-sizing:border-box}
        .actions{display:flex;gap:.6rem;margin-top:1.2rem} button{padding:.6rem 1.2rem;font-size:1rem;border-radius:6px;border:1px solid #335;cursor:pointer}
        button.primary{background:#2451b7;color:#fff;border-color:#2451b7} .error{background:#fde8e8;border:1px solid #c33;padding:.6rem;border-radius:6px}
        .note{color:#556;font-size:.9rem} .ok{background:#e6f6ea;border:1px solid #2a7;padding:.6rem;border-radius:6px}
        </style></head>
        <body><main><h1>\(escape(heading))</h1>
        \(body)
        </main></body></html>
        """
    }

    /// An error notice read out by screen readers (empty when there is no message).
    static func alert(_ message: String?) -> String {
        guard let message else { return "" }
        return "<p class=\"error\" role=\"alert\">⚠️ \(escape(message))</p>"
    }

    /// The page of the SAML HTTP-POST binding: a form of hidden fields that a script posts as soon as the page loads,
    /// with a `<noscript>` button for browsers without JavaScript.
    static func autoPost(title: String, message: String, action: String, fields: KeyValuePairs<String, String>) -> String {
        let inputs = fields.map { "<input type=\"hidden\" name=\"\(escape($0.key))\" value=\"\(escape($0.value))\">" }.joined()
        let body = """
            <p class="note">\(escape(message))</p>
            <form method="post" action="\(escape(action))">\(inputs)
            <noscript><p>JavaScript is off in this browser: press Continue.</p><div class="actions"><button class="primary" type="submit">Continue</button></div></noscript>
            </form>
            <script>document.forms[0].submit();</script>
            """
        return page(title: title, heading: title, body: body)
    }

    /// A page that sends the browser on to `url` with `<meta http-equiv="refresh">` (and a link for people).
    static func metaRefresh(title: String, message: String, to url: String) -> String {
        page(title: title, heading: title,
            body: "<p class=\"note\">\(escape(message))</p><p><a href=\"\(escape(url))\">Continue</a></p>",
            head: "<meta http-equiv=\"refresh\" content=\"0; url=\(escape(url))\">")
    }

    /// A refusal a browser shows: heading, the reason in an alert, and the machine-readable code.
    static func refusal(_ heading: String, code: String, message: String) -> String {
        page(title: heading, heading: heading,
            body: alert(message) + "<p class=\"note\">Error code: <code data-error=\"\(escape(code))\">\(escape(code))</code></p>")
    }
}
