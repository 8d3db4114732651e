import Foundation
import MicroHTTP
import PassProtocol

extension BackendService {
    /// The paths throttling applies to (spec §5.1): configuration, REST v1, registration codes, DCR.
    static func isThrottled(_ path: String) -> Bool {
        ["/adobe-services", "/api/", "/reggie/", "/o/client/"].contains { path.hasPrefix($0) }
    }

    /// The `429` answer when the caller's token bucket is empty, or `nil` to go on.
    func throttle(_ request: Request) -> Response? {
        guard let settings = faults.throttle, Self.isThrottled(request.path) else { return nil }
        let client = request.header("X-Forwarded-For")?.split(separator: ",").first.map {
            $0.trimmingCharacters(in: .whitespaces)
        } ?? request.remoteAddress
        let now = clock.now()
        let allowed = state.withLock { state -> Bool in
            var bucket = state.buckets[client] ?? (Double(settings.burst), now)
            bucket.tokens = min(
                Double(settings.burst),
                bucket.tokens + now.timeIntervalSince(bucket.updated) * settings.requestsPerSecond)
            bucket.updated = now
            let allowed = bucket.tokens >= 1
            if allowed { bucket.tokens -= 1 }
            state.buckets[client] = bucket
            return allowed
        }
        guard !allowed else { return nil }
        if request.path.hasPathPrefix("/api/v2/") {
            // REST API v2's throttling answer is the vendor's HTML page (docs/rest-api-v2.md §6), no JSON code.
            var response = Response.html(
                "<html>\n<head><title>429 Too Many Requests</title></head>\n<body>\n<center><h1>429 Too Many Requests</h1></center>\n</body>\n</html>\n",
                status: HTTPStatus(429))
            response.addHeader("Retry-After", "1")
            return response
        }
        var response = RESTFormat(request).render(
            RESTError(status: 429, message: "Too Many Requests", details: "Throttled: wait at least 1 second."))
        response.addHeader("Retry-After", "1")
        return response
    }

    /// The first fault rule matching the request, counting one use of it.
    func takeFault(for request: Request) -> FaultRule? {
        guard !request.path.hasPathPrefix("/admin") else { return nil }
        return state.withLock { state -> FaultRule? in
            guard let index = state.faults.rules.firstIndex(where: { $0.matches(method: request.method, path: request.path) })
            else { return nil }
            if let remaining = state.faults.rules[index].remaining { state.faults.rules[index].remaining = remaining - 1 }
            return state.faults.rules[index]
        }
    }
}
