import Foundation
import MicroHTTP

extension Console {
    /// `response`, or a small HTML page with links to the console when it is a `404` for a browser's page request:
    /// a `GET` outside `/api` whose `Accept` names `text/html` (what a browser sends when it opens an address). API
    /// paths and JSON clients keep the JSON `404`, which scripts read.
    static func notFoundPage(for request: Request, _ response: Response) -> Response {
        guard response.status.code == 404, request.method == "GET" || request.method == "HEAD",
            PathNormalizer.guardedHead(of: request.path) != "api",
            request.header("Accept")?.lowercased().contains("text/html") == true
        else { return response }
        let page = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>No such page · PassConsole</title>
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#1d2430}
            code{background:#eef1f5;padding:0 .25rem;border-radius:3px}</style></head>
            <body><main id="not-found"><h1>No such page</h1>
            <p>PassConsole serves nothing at <code>\(escapeHTML(request.path))</code>.</p>
            <p><a href="/">Open the console</a> · <a href="/#/events">Events</a> · <a href="/#/sessions">Sessions</a> ·
            <a href="/openapi.json">The JSON API (openapi.json)</a></p></main></body></html>
            """
        // The page runs nothing: no script may load, its only style is inline.
        return Response(status: .notFound,
            headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"),
                      ("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")],
            body: .data(Data(page.utf8)))
    }

    static func escapeHTML(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "&": escaped += "&amp;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
