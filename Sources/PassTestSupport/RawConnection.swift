import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to a loopback server, for what an HTTP library hides: partial requests
/// (slowloris), streamed answers read as they come (Server-Sent Events), and abrupt disconnects.
public final class RawConnection: @unchecked Sendable {
    private let fd: Int32
    private var buffer: Data

    /// Connects to `host:port` (an IPv4 address; loopback unless told otherwise).
    ///
    /// The socket is opened in a local first and stored only once connected: when a class's initializer throws after
    /// every stored property is set, its deinitializer still runs, and closing the descriptor there as well as here
    /// closed it twice — by then the number could belong to a socket libmicrohttpd had just accepted, which then
    /// aborted the test process ("Close socket failed").
    public init(host: String = "127.0.0.1", port: UInt16) throws {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr(host)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        // Interrupted by a signal, the connect goes on in the background: wait for it and read its outcome.
        guard result == 0 || (errno == EINTR && Self.finishConnect(socketFD)) else {
            let code = errno
            close(socketFD)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .ECONNREFUSED)
        }
        fd = socketFD
        buffer = Data()
    }

    deinit { close(fd) }

    /// Waits (up to 20 s) for a connect that a signal interrupted; `true` once it succeeded.
    private static func finishConnect(_ fd: Int32) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        var ready: Int32
        repeat { ready = poll(&poller, 1, 20_000) } while ready < 0 && errno == EINTR
        guard ready > 0 else { return false }
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 && failure == 0
    }

    /// Sends text as is.
    public func send(_ text: String) { sendBytes(Data(text.utf8)) }

    /// Sends bytes as they are, all of them unless the peer is gone. A send cut short by a signal (`EINTR`: the
    /// test process gets `SIGCHLD` whenever another test's child process ends) or by a full buffer goes on where it
    /// stopped; once, a request sent in one call was cut so and the server never answered.
    public func sendBytes(_ data: Data) {
        var offset = 0
        while offset < data.count {
            let sent = data.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent > 0 {
                offset += sent
            } else if sent < 0, errno == EINTR || errno == EAGAIN {
                continue
            } else {
                return
            }
        }
    }

    /// Reads until `complete` says the bytes so far are a whole answer, the peer closes, or `timeout` passes,
    /// blocking the calling thread; returns every byte received.
    public func readBlocking(timeout: Duration, until complete: (Data) -> Bool) -> Data {
        let deadline = ContinuousClock.now + timeout
        while !complete(buffer), ContinuousClock.now < deadline, readOnce(wait: deadline) {}
        return buffer
    }

    /// Sends bytes until they are all sent or something arrives from the peer (an early answer); returns how many
    /// bytes went out. Blocks the calling thread.
    public func sendUntilAnswered(_ data: Data, chunk: Int = 64 * 1024) -> Int {
        var offset = 0
        while offset < data.count {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 0) > 0 { return offset }
            let end = min(data.count, offset + chunk)
            let sent = data[offset..<end].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if sent > 0 {
                offset += sent
            } else if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                var writable = pollfd(fd: fd, events: Int16(POLLIN | POLLOUT), revents: 0)
                _ = poll(&writable, 1, 100)
            } else {
                return offset
            }
        }
        return offset
    }

    /// Closes the socket now (an abrupt client disconnect).
    public func closeNow() { shutdown(fd, Int32(SHUT_RDWR)) }

    /// Reads until the received text contains `marker`, the peer closes, or `timeout` passes; returns all text
    /// received so far.
    ///
    /// The wait runs on a thread of its own: a blocking `poll` on one of the concurrency pool's few threads (two on
    /// a 2-core machine) starved every other test's tasks, and timer-driven tests then failed at random.
    @discardableResult
    public func read(until marker: String, timeout: Duration = .seconds(20)) async -> String {
        await offPool {
            let deadline = ContinuousClock.now + timeout
            while !self.text.contains(marker), ContinuousClock.now < deadline, self.readOnce(wait: deadline) {}
            return self.text
        }
    }

    /// Forgets what was received so far (long streams).
    public func discardReceived() { buffer.removeAll() }

    /// Everything received so far as text.
    public var text: String { String(decoding: buffer, as: UTF8.self) }

    /// Waits up to `timeout` for the peer to close the connection; `true` when it did. Waits on its own thread.
    public func waitForClose(timeout: Duration) async -> Bool {
        await offPool {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if !self.readOnce(wait: deadline) { return ContinuousClock.now < deadline || self.peerClosed }
            }
            return self.peerClosed
        }
    }

    /// Runs blocking socket work on a new thread and resumes the caller when it is done.
    private func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }

    private var peerClosed = false

    /// Reads what is available, waiting at most until `deadline`; `false` when the peer closed or time ran out.
    /// A wait or read cut short by a signal (`EINTR`) is neither: it returns `true` with nothing read, and the
    /// caller's loop waits again (an interrupted `poll` once read as "no answer" and failed a test at random).
    private func readOnce(wait deadline: ContinuousClock.Instant) -> Bool {
        let remaining = deadline - ContinuousClock.now
        let milliseconds = max(0, Int32(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000))
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, milliseconds)
        if ready < 0 { return errno == EINTR && ContinuousClock.now < deadline }
        guard ready > 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(fd, &chunk, chunk.count, 0)
        if count < 0, errno == EINTR || errno == EAGAIN { return true }
        if count <= 0 {
            peerClosed = true
            return false
        }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }
}
