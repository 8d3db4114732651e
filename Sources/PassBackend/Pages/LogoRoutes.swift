import Foundation
import MicroHTTP
import PassProtocol

/// The MVPD logos the configuration points at (`logoURL` = `/logos/{id}.svg`): a generated SVG badge with
/// the MVPD's display name, so the provider picker has something to show without shipping image files.
///
/// `GET /logos/{id}.svg` → `200 image/svg+xml` for a configured MVPD or TempPass ID, `404` JSON otherwise.
enum LogoRoutes {
    static func register(in router: inout Router, service: BackendService) {
        router.get("/logos/{file}") { request in
            let file = request.pathParameters["file"] ?? ""
            let id = String(file.dropLast(4))
            // TempPass MVPDs have a badge too (REST API v2's configuration lists them with a logo).
            let temp = service.configuration.tempPass.first { $0.id == id }.map { MVPD(id: $0.id, displayName: $0.displayName) }
            guard file.hasSuffix(".svg"), let mvpd = service.mvpd(id) ?? temp else {
                throw HTTPError(.notFound, code: "unknown_logo", message: "No MVPD logo is served at this path.",
                    detail: request.path)
            }
            var response = Response.text(svg(for: mvpd), contentType: "image/svg+xml")
            response.addHeader("Cache-Control", "public, max-age=3600")
            return response
        }
    }

    /// A 240×80 badge: a colour chosen from the MVPD ID (stable across runs) and the display name.
    static func svg(for mvpd: MVPD) -> String {
        let hue = mvpd.id.unicodeScalars.reduce(0) { ($0 * 31 + Int($1.value)) % 360 }
        let name = XMLEscaping.escape(mvpd.displayName)
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="240" height="80" viewBox="0 0 240 80" role="img" \
            aria-label="\(name)"><title>\(name)</title>\
            <rect width="240" height="80" rx="12" fill="hsl(\(hue),55%,38%)"/>\
            <text x="120" y="48" font-family="system-ui,sans-serif" font-size="24" font-weight="600" \
            fill="#fff" text-anchor="middle">\(name)</text></svg>
            """
    }
}
