import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal HTTP/1.1 client over a plain socket to a loopback port, one request per connection.
///
/// For chromedriver: FoundationNetworking on Linux fails on its answers ("Failed writing header", from libcurl's
/// header callback), while a plain socket reads them fine. Blocking I/O runs on a thread of its own, off the
/// concurrency pool.
enum LoopbackHTTP {
    struct Answer {
        var status: Int
        var body: Data
    }

    static func request(port: UInt16, method: String, path: String, body: Data?) async throws -> Answer {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try blockingRequest(port: port, method: method, path: path, body: body) })
            }.start()
        }
    }

    static func blockingRequest(port: UInt16, method: String, path: String, body: Data?) throws -> Answer {
        let connection = try RawConnection(port: port)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let body { head += "Content-Type: application/json; charset=utf-8\r\nContent-Length: \(body.count)\r\n" }
        head += "\r\n"
        connection.sendBytes(Data(head.utf8) + (body ?? Data()))
        // chromedriver keeps the connection open despite `Connection: close`: stop once the answer is complete.
        let raw = connection.readBlocking(timeout: .seconds(120), until: isComplete)
        guard let split = raw.range(of: Data("\r\n\r\n".utf8)) else { throw WebDriver.Failure(description: "no HTTP answer from port \(port)") }
        let header = String(decoding: raw[..<split.lowerBound], as: UTF8.self)
        let status = Int(header.split(separator: " ").dropFirst().first ?? "") ?? 0
        var payload = Data(raw[split.upperBound...])
        if header.lowercased().contains("transfer-encoding: chunked") { payload = dechunk(payload) }
        return Answer(status: status, body: payload)
    }

    /// Whether `raw` holds a whole answer: headers and `Content-Length` bytes, or a chunked body's last chunk.
    static func isComplete(_ raw: Data) -> Bool {
        guard let split = raw.range(of: Data("\r\n\r\n".utf8)) else { return false }
        let header = String(decoding: raw[..<split.lowerBound], as: UTF8.self).lowercased()
        let bodyCount = raw.count - split.upperBound
        for line in header.split(separator: "\r\n") where line.hasPrefix("content-length:") {
            return bodyCount >= Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        if header.contains("transfer-encoding: chunked") { return raw.suffix(5) == Data("0\r\n\r\n".utf8) }
        return false
    }

    static func dechunk(_ data: Data) -> Data {
        var result = Data()
        var rest = data[...]
        while let lineEnd = rest.range(of: Data("\r\n".utf8)) {
            let sizeText = String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size > 0 else { break }
            let start = lineEnd.upperBound
            guard let end = rest.index(start, offsetBy: size, limitedBy: rest.endIndex) else { break }
            result.append(rest[start..<end])
            rest = rest[min(rest.endIndex, rest.index(end, offsetBy: 2, limitedBy: rest.endIndex) ?? rest.endIndex)...]
        }
        return result
    }
}
