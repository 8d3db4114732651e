import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// A bad upstream on 127.0.0.1: a TCP server that accepts and then never answers (`silent`), or answers bytes that are
/// not HTTP and closes (`garbage`).
final class RawUpstream: @unchecked Sendable {
    enum Behaviour { case silent, garbage }
    let port: UInt16
    private let fd: Int32
    private var accepted: [Int32] = []
    private let lock = NSLock()

    init(_ behaviour: Behaviour) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &length) } }
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }
                switch behaviour {
                case .silent:
                    lock.withLock { accepted.append(client) }
                case .garbage:
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    _ = read(client, &buffer, buffer.count)
                    let nonsense = Array("\u{1}\u{2}not http at all\r\n\r\n".utf8)
                    _ = write(client, nonsense, nonsense.count)
                    close(client)
                }
            }
        }
    }

    func stop() {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
        lock.withLock { for client in accepted { close(client) } }
    }
}
