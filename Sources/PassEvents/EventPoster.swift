import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How an ``EventReporter`` posts a batch to a console: the body, the URL and the headers in, the answer's status
/// out (a thrown error when no answer came). URLSession by default (an app's reporter); a server recording its
/// traffic gives one on its own HTTP client (FoundationNetworking's URLSession kept a dispatch source busy for the
/// whole of each upload: 14% of a recording backend's CPU under load, measured with `perf record`).
public protocol EventPoster: Sendable {
    func post(_ body: Data, to url: URL, headers: [String: String]) async throws -> Int
}

/// ``EventPoster`` on an ephemeral URLSession.
public struct URLSessionPoster: EventPoster {
    let session: URLSession

    public init(timeout: TimeInterval = 10) {
        let configuration = URLSessionConfiguration.ephemeral
        // No URLCache: with one, cancelling a task can trap in swift-corelibs-foundation (the cache lookup runs on
        // another queue, so the cancel's failure reaches a task already gone from the registry; seen in a make test run).
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = timeout
        session = URLSession(configuration: configuration)
    }

    public func post(_ body: Data, to url: URL, headers: [String: String]) async throws -> Int {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let (_, response) = try await session.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
}
