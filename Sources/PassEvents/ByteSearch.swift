import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finding a byte string in bytes with the C library's `memchr` (a vector scan for the first byte) and `memcmp`
/// (Swift's Glibc module does not offer `memmem`). The
/// standard library's generic `firstRange(of:)` on a `String.UTF8View` or `Data` was 3–7% of the CPU of a backend
/// recording every exchange (`perf record`, REST v1 authorize under wrk); these run on every recorded answer.
package enum ByteSearch {
    /// The offset of the first `needle` in `haystack`, or nil.
    package static func offset(of needle: [UInt8], in haystack: UnsafeRawBufferPointer) -> Int? {
        guard !needle.isEmpty else { return 0 }
        guard let base = haystack.baseAddress, haystack.count >= needle.count else { return nil }
        return needle.withUnsafeBytes { pattern -> Int? in
            let first = Int32(pattern[0])
            let last = haystack.count - pattern.count
            var start = 0
            while start <= last {
                // memchr finds the next candidate first byte with the C library's vector scan, memcmp checks the rest.
                guard let hit = memchr(base + start, first, last - start + 1) else { return nil }
                let at = base.distance(to: UnsafeRawPointer(hit))
                if memcmp(hit, pattern.baseAddress!, pattern.count) == 0 { return at }
                start = at + 1
            }
            return nil
        }
    }

    /// Whether `text`'s UTF-8 holds `needle`.
    package static func contains(_ needle: [UInt8], in text: String) -> Bool {
        var text = text
        return text.withUTF8 { offset(of: needle, in: UnsafeRawBufferPointer($0)) != nil }
    }

    /// Whether `data` holds `needle`.
    package static func contains(_ needle: [UInt8], in data: Data) -> Bool {
        data.withUnsafeBytes { offset(of: needle, in: $0) != nil }
    }

    /// Whether `bytes` hold `needle`.
    package static func contains(_ needle: [UInt8], in bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { offset(of: needle, in: $0) != nil }
    }
}
