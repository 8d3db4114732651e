/// The `Content-Security-Policy` of the console's pages and scripts (every file of `Public/`, see ``Console``): the page
/// runs only its own scripts and style sheet, talks only to this console, and cannot be framed, so text an event or
/// a reporting app put on the page can never run as script, restyle it, or send anything elsewhere.
///
/// What the page needs, checked against `Public/`: its module scripts and the live SharedWorker (`'self'`), `style.css`
/// (`'self'`; styles the scripts set go through `element.style`, which a policy does not govern, and no element
/// carries a `style` attribute), `fetch` and `EventSource` to its own API (`connect-src 'self'`), the empty `data:`
/// icon, and MVPD logos, which are wherever the Programmer's configuration says (`img-src` any `http:`/`https:`
/// address: an image cannot run anything). Its forms are handled by scripts (`form-action 'self'`).
enum PagePolicy {
    static let contentSecurityPolicy = [
        "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data: http: https:",
        "connect-src 'self'", "worker-src 'self'", "object-src 'none'", "frame-ancestors 'none'", "base-uri 'none'",
        "form-action 'self'",
    ].joined(separator: "; ")

    /// The headers every file of `Public/` is served with.
    static let headers: [(name: String, value: String)] = [("Content-Security-Policy", contentSecurityPolicy)]
}
