import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends one batch to the console's `POST /api/ingest` and says what came of it.
struct IngestClient: Sendable {
    /// What one request came to.
    enum Outcome: Sendable, Equatable {
        /// The console has the batch: `stored` new, `duplicates` it had already, `unreadable` lines it could not read.
        case accepted(stored: Int, duplicates: Int, unreadable: Int)
        /// Try again later: the console is away, busy or failing (no answer, 5xx, 408, 429). `retryAfter` is its
        /// `Retry-After` in seconds, if it sent one.
        case retry(reason: String, retryAfter: TimeInterval?)
        /// The body was too large for the console (413): send fewer events at once.
        case tooLarge(reason: String)
        /// The console refused the batch (another 4xx): sending it again will not help.
        case refused(status: Int, reason: String)
    }

    /// The most losses one request reports (the console's range for `X-PassConsole-Dropped`).
    static let reportedLimit = 1_000_000_000

    let endpoint: URL
    let accessToken: String?
    let session: URLSession

    init(console: URL, accessToken: String?, timeout: TimeInterval) {
        endpoint = console.appendingPathComponent("api/ingest")
        self.accessToken = accessToken
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpShouldSetCookies = false
        configuration.timeoutIntervalForRequest = timeout
        session = URLSession(configuration: configuration)
    }

    /// Posts `lines` as NDJSON, with `lost` in `X-PassConsole-Dropped`.
    func send(_ lines: [String], lost: Int) async -> Outcome {
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        request.setValue("application/x-ndjson", forHTTPHeaderField: "Content-Type")
        request.setValue(String(min(max(0, lost), Self.reportedLimit)), forHTTPHeaderField: "X-PassConsole-Dropped")
        if let accessToken { request.setValue("Bearer \(accessToken)", forHTTPHeaderField: "Authorization") }
        request.httpBody = Data((lines.joined(separator: "\n") + "\n").utf8)
        let answer: (Data, URLResponse)
        do {
            answer = try await data(for: request)
        } catch {
            return .retry(reason: "cannot reach the console at \(endpoint.absoluteString): \(error.localizedDescription)", retryAfter: nil)
        }
        guard let response = answer.1 as? HTTPURLResponse else {
            return .retry(reason: "the console's answer was not HTTP", retryAfter: nil)
        }
        return Self.outcome(status: response.statusCode, body: answer.0,
            retryAfter: response.value(forHTTPHeaderField: "Retry-After"), batch: lines.count)
    }

    /// What an answer means (pure, for tests).
    static func outcome(status: Int, body: Data, retryAfter: String?, batch: Int) -> Outcome {
        let json = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        let said = describe(status: status, json: json, body: body)
        switch status {
        case 200..<300:
            let stored = (json?["accepted"] as? NSNumber)?.intValue ?? batch
            let duplicates = (json?["duplicates"] as? NSNumber)?.intValue ?? 0
            let unreadable = (json?["rejected"] as? [Any])?.count ?? 0
            return .accepted(stored: stored, duplicates: duplicates, unreadable: min(unreadable, batch))
        case 408, 429, 500..<600:
            return .retry(reason: said, retryAfter: retryAfter.flatMap(TimeInterval.init).flatMap { $0 >= 0 ? $0 : nil })
        case 413:
            return .tooLarge(reason: said)
        case 400..<500:
            return .refused(status: status, reason: said)
        default:
            return .retry(reason: said, retryAfter: nil)
        }
    }

    /// `the console answered 400 (bad_batch: …message…)`: the console's JSON error in words when it sent one.
    static func describe(status: Int, json: [String: Any]?, body: Data) -> String {
        let code = json?["error"] as? String
        let message = json?["message"] as? String
        var detail = [code, message].compactMap { $0 }.joined(separator: ": ")
        if detail.isEmpty, status >= 300 { detail = String(decoding: body.prefix(200), as: UTF8.self) }
        return "the console answered \(status)" + (detail.isEmpty ? "" : " (\(detail))")
    }

    /// `URLSession`'s completion-handler call as `async` (the `async` method needs iOS 15 and differs on Linux).
    private func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else if let response {
                    continuation.resume(returning: (data ?? Data(), response))
                } else {
                    continuation.resume(throwing: URLError(.badServerResponse))
                }
            }.resume()
        }
    }
}
