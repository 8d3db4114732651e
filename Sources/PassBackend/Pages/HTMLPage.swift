import PassProtocol

/// Small, self-contained HTML pages for the MVPD login/logout screens and the activation page.
enum HTMLPage {
    /// Escapes text for HTML content and attribute values.
    static func escape(_ text: String) -> String { XMLEscaping.escape(text) }

    /// A full page with a title, a heading and body markup (already escaped by the caller).
    static func page(title: String, heading: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
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
}
