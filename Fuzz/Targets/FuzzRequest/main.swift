import Foundation
import FuzzDriver
@testable import MicroHTTP
import WireDates

/// The request layer: form and query decoding, cookies, route matching, the bounded number readers, HTTP dates.
/// The input is split at the first two newlines into a path, a query string and a body.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Data(bytes: data, count: size)
    let parts = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 2, omittingEmptySubsequences: false)
    let path = String(decoding: parts.first ?? Data(), as: UTF8.self)
    let query = parts.count > 1 ? String(decoding: parts[1], as: UTF8.self) : ""
    let body = parts.count > 2 ? Data(parts[2]) : Data()
    let request = Request(method: "POST", path: path, queryItems: FormEncoding.decode(query),
        headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", query), ("X-N", path)], body: body)
    _ = request.cookies
    for (name, value) in request.formItems + request.queryItems {
        _ = try? BoundedInput.integer(value, named: name, in: Int.min...Int.max)
        _ = try? BoundedInput.integer(value, named: name, in: Int64(0)...Int64(100))
        _ = try? BoundedInput.number(value, named: name, in: -1e9...1e9)
    }
    _ = try? request.header("X-N", as: Int.self, in: 1...5000, default: 1)
    _ = FuzzRouter.router.respondInline(to: request)
    _ = RoutePattern(path).match(RoutePattern.segments(of: query))
    if let date = HTTPDate.parse(path) { _ = HTTPDate.format(date); _ = ISODate.format(date) }
    _ = FormEncoding.encode(request.formItems.map { ($0.name, $0.value) })
    return 0
}

enum FuzzRouter {
    static let router: Router = {
        var router = Router()
        router.on("GET", "/a/{id}", inline: { request in .text(request.pathParameters["id"] ?? "") })
        router.on("POST", "/b/{id}/c/{rest...}", inline: { request in .text(request.pathParameters["rest"] ?? "") })
        router.on("POST", "/{x}", inline: { request in
            .text(String(try request.parameter("n", as: Int.self, in: 1...10) ?? 0))
        })
        return router
    }()
}

runLibFuzzer(fuzzRequest)
