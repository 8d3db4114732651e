import AsyncHTTPClient
import Foundation
import NIOCore
import PassEvents

/// Posts a recording server's events to a console on AsyncHTTPClient (keep-alive, NIO's event loops): the
/// ``EventPoster`` of `backend --report-to` and `proxy --report-to`. See ``EventPoster`` for why not URLSession.
public struct ConsolePoster: EventPoster {
    let timeout: TimeAmount

    public init(timeout: Duration = .seconds(10)) {
        self.timeout = .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)
    }

    public func post(_ body: Data, to url: URL, headers: [String: String]) async throws -> Int {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let answer = try await HTTPClient.shared.execute(request, timeout: timeout)
        // The answer's body is small (counts); read it so the connection goes back to the pool.
        _ = try await answer.body.collect(upTo: 1 << 20)
        return Int(answer.status.code)
    }
}
