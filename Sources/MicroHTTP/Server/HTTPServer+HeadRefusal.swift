import CMicroHTTPD
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Answers a request libmicrohttpd is about to refuse on its own, with the server's JSON instead.
///
/// libmicrohttpd reads `Content-Length` itself once a head is complete, before any callback of ours: a value that is
/// not a number it can hold (`-1`, `+5`, `1, 5`, 23 digits) was answered with its own HTML `400` (or `413`), its status
/// line and headers written twice, and our access callback never ran. It logs why just before answering, on the
/// thread handling that connection; from that message this finds the requests on this thread whose head
/// ``RequestHeadCheck`` refuses for their `Content-Length`, writes that refusal (JSON, `Connection: close`) straight to
/// the socket and ends the writing side, so libmicrohttpd's own answer finds the socket shut and the connection is
/// closed: one answer, ours.
extension HTTPServer {
    /// libmicrohttpd logged `message` on this thread.
    func libraryLogged(_ message: UnsafePointer<CChar>) {
        guard strstr(message, "Content-Length") != nil else { return }
        let thread = pthread_self()
        let candidates = state.withLock { state in state.heads.values.filter { pthread_equal($0.thread, thread) != 0 } }
        for context in candidates where !context.state.withLock({ $0.answeredOnSocket }) {
            // Only this thread touches these connections: their headers read so far are stable here.
            guard let problem = RequestHeadCheck.problem(pairs(context.connection.pointer, .HEADER_KIND)),
                ["bad_content_length", "conflicting_content_length"].contains(problem.code)
            else { continue }
            context.state.withLock { $0.answeredOnSocket = true }
            answerOnSocket(problem.response, context.connection.pointer)
        }
    }

    /// Writes `response` (a JSON error) to the connection's socket with `Connection: close`, then shuts the socket's
    /// writing side: whatever libmicrohttpd sends for this request afterwards fails and it closes the connection.
    /// Only while libmicrohttpd has sent nothing for the request (before its answer is queued).
    func answerOnSocket(_ response: Response, _ connection: OpaquePointer) {
        let fd = pc_connection_fd(connection)
        guard fd >= 0 else { return }
        let body = response.bodyData
        let type = response.headers.first { $0.name.equalsIgnoringASCIICase("Content-Type") }?.value ?? "application/json"
        var bytes = Data(("HTTP/1.1 \(response.status.code) \(response.status.reasonPhrase)\r\nContent-Type: \(type)\r\n"
            + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n").utf8)
        bytes.append(body)
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent > 0 { offset += sent } else if errno == EINTR || errno == EAGAIN { continue } else { break }
            }
        }
        Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// A connection's key in ``State/heads``.
    static func key(_ connection: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection))) }
}
