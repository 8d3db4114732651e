import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Many Server-Sent Events clients of one console (or of several, each client naming its console's port) on plain sockets, read by one thread (`poll`), as a team's tabs
/// would hold them: each records, per entitlement event, its history ID, the bench sequence number found in its
/// summary (`call lb<seq>()`) and when it arrived. A client sent `event: resync` (or whose stream ends) reconnects
/// with `Last-Event-ID`, as `EventSource` does.
final class SSEFleet: @unchecked Sendable {
    struct Client {
        var port: UInt16
        var path: String
        var fd: Int32 = -1
        var buffer: [UInt8] = []
        /// The response's framing taken off (chunked transfer encoding).
        var body = ChunkedBody()
        var open = false
        var lastID: Int64?
        /// (sequence, history ID, arrival in seconds since the fleet's clock started)
        var received: [(seq: Int, id: Int64, at: Double)] = []
        var resyncs = 0
        var reconnects = 0
    }

    private let lock = NSLock()
    private var clients: [Client]
    private var running = true
    private var thread: Thread?
    let clock = ContinuousClock.now

    init(port: UInt16, paths: [String]) {
        clients = paths.map { Client(port: port, path: $0) }
    }

    /// Clients of several consoles: each its console's port and its stream's path.
    init(targets: [(port: UInt16, path: String)]) {
        clients = targets.map { Client(port: $0.port, path: $0.path) }
    }

    /// Connects every client and starts reading.
    func start() throws {
        for index in clients.indices { try connect(index) }
        let thread = Thread { [self] in readLoop() }
        thread.stackSize = 1 << 20
        self.thread = thread
        thread.start()
    }

    func stop() {
        lock.withLock { running = false }
        for client in snapshot() where client.fd >= 0 { close(client.fd) }
    }

    func snapshot() -> [Client] { lock.withLock { clients } }

    /// Seconds since the fleet started (the clock arrivals are stamped with).
    func now() -> Double { seconds(ContinuousClock.now - clock) }

    /// True once every client's stream has opened (it sent `retry:`).
    var allOpen: Bool { lock.withLock { clients.allSatisfy(\.open) } }

    private func connect(_ index: Int) throws {
        let port = lock.withLock { clients[index].port }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw BenchFailure("cannot connect to the console on port \(port)")
        }
        let (path, last) = lock.withLock { (clients[index].path, clients[index].lastID) }
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        if let last { request += "Last-Event-ID: \(last)\r\n" }
        let bytes = Array((request + "\r\n").utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        lock.withLock {
            clients[index].fd = fd
            clients[index].buffer = []
            clients[index].body = ChunkedBody()
        }
    }

    private func readLoop() {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while lock.withLock({ running }) {
            var fds = lock.withLock { clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) } }
            let ready = poll(&fds, nfds_t(fds.count), 200)
            guard ready > 0 else { continue }
            for index in fds.indices where fds[index].revents != 0 {
                let count = recv(fds[index].fd, &chunk, chunk.count, 0)
                if count < 0, errno == EINTR || errno == EAGAIN { continue }  // a signal, not the end of the stream
                if count <= 0 {
                    reconnect(index)
                    continue
                }
                let at = now()
                if consume(index, chunk[0..<count], at: at) { reconnect(index) }
            }
        }
    }

    private func reconnect(_ index: Int) {
        let fd = lock.withLock { clients[index].fd }
        close(fd)
        guard lock.withLock({ running }) else { return }
        lock.withLock { clients[index].reconnects += 1 }
        for _ in 0..<50 {
            if (try? connect(index)) != nil { return }
            usleep(100_000)
        }
    }

    /// Adds bytes to a client's buffer and records the whole messages in it; true when a resync notice came (the
    /// server ends the stream after it).
    private func consume(_ index: Int, _ bytes: ArraySlice<UInt8>, at: Double) -> Bool {
        lock.withLock {
            clients[index].buffer += clients[index].body.feed(bytes)
            var resync = false
            var buffer = clients[index].buffer
            var start = 0
            let newline = UInt8(ascii: "\n")
            var i = 0
            while i + 1 < buffer.count {
                if buffer[i] == newline && buffer[i + 1] == newline {
                    let block = buffer[start..<i]
                    if !clients[index].open, contains(block, "retry:") { clients[index].open = true }
                    if let message = parse(block) {
                        if message.event == "resync" {
                            resync = true
                            clients[index].resyncs += 1
                        }
                        if let id = message.id { clients[index].lastID = id }
                        if message.event == "entitlement", let id = message.id, let seq = message.seq {
                            clients[index].received.append((seq, id, at))
                        }
                    }
                    start = i + 2
                    i += 2
                } else {
                    i += 1
                }
            }
            buffer.removeFirst(start)
            clients[index].buffer = buffer
            return resync
        }
    }

    private func contains(_ block: ArraySlice<UInt8>, _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard block.count >= needle.count else { return false }
        return block.indices.dropLast(needle.count - 1).contains { start in block[start..<start + needle.count].elementsEqual(needle) }
    }

    private func parse(_ block: ArraySlice<UInt8>) -> (id: Int64?, event: String?, seq: Int?)? {
        var id: Int64?, event: String?, seq: Int?
        for line in block.split(separator: UInt8(ascii: "\n")) {
            if line.starts(with: Array("id: ".utf8)) {
                id = Int64(String(decoding: line.dropFirst(4), as: UTF8.self))
            } else if line.starts(with: Array("event: ".utf8)) {
                event = String(decoding: line.dropFirst(7), as: UTF8.self)
            } else if line.starts(with: Array("data: ".utf8)) {
                seq = Self.sequence(in: line)
            }
        }
        return id == nil && event == nil ? nil : (id, event, seq)
    }

    private static let marker = Array("call lb".utf8)

    /// The digits after `call lb` in an event's JSON.
    static func sequence(in line: ArraySlice<UInt8>) -> Int? {
        var index = line.startIndex
        while index + marker.count <= line.endIndex {
            if line[index] == marker[0], line[index..<index + marker.count].elementsEqual(marker) {
                var value = 0, digits = 0
                var at = index + marker.count
                while at < line.endIndex, (0x30...0x39).contains(line[at]) {
                    value = value * 10 + Int(line[at] - 0x30)
                    digits += 1
                    at += 1
                }
                return digits > 0 ? value : nil
            }
            index += 1
        }
        return nil
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
