import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The addresses this machine answers on, for Host allow-lists of servers bound beyond loopback.
public enum LocalAddresses {
    /// Loopback names a browser may use for a server on this machine (IPv6 in brackets, as in a `Host` header).
    public static let loopbackNames: Set<String> = ["127.0.0.1", "localhost", "[::1]"]

    /// Whether `host` (an address or name, no port) is loopback.
    public static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased()
        return loopbackNames.contains(host) || host == "::1" || host.hasPrefix("127.")
    }

    /// Every IPv4 and IPv6 address of this machine's interfaces (`getifaddrs`), IPv6 in brackets; loopback included.
    public static func interfaceAddresses() -> Set<String> {
        var result: Set<String> = []
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return result }
        defer { freeifaddrs(list) }
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr else { continue }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                    var raw = ipv4.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &raw, &buffer, socklen_t(buffer.count))
                }
                result.insert(buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
            case AF_INET6:
                address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                    var raw = ipv6.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count))
                }
                result.insert("[\(buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })]")
            default: continue
            }
        }
        return result
    }

    /// The host names a server bound to `boundHost` answers to: loopback always; when bound to every interface
    /// (`0.0.0.0`), each interface address and the machine's host name; when bound to one address, that address.
    public static func hostNames(boundTo boundHost: String) -> Set<String> {
        var names = loopbackNames
        if boundHost == "0.0.0.0" || boundHost == "::" {
            names.formUnion(interfaceAddresses())
            let name = ProcessInfo.processInfo.hostName.lowercased()
            if !name.isEmpty { names.insert(name) }
        } else {
            names.insert(boundHost.contains(":") && !boundHost.hasPrefix("[") ? "[\(boundHost)]" : boundHost.lowercased())
        }
        return names
    }

    /// `127.0.0.1` from `127.0.0.1:8080`, `[::1]` from `[::1]:8080`, lower-cased (read by ``HostHeader``); a value
    /// that is no `Host` (the server refuses those before any handler) is returned as it is, lower-cased, so it
    /// matches no allow-list.
    public static func hostName(fromHostHeader host: String) -> String {
        HostHeader(host)?.name ?? host.lowercased()
    }
}
