/// The body of one HTTP/1.1 response read from a raw socket: the head is skipped, and a `Transfer-Encoding: chunked`
/// body is taken out of its framing, so what comes out is the event stream as the server wrote it.
///
/// The bench's SSE clients once parsed the raw socket bytes: a chunk-size line that fell inside an event's summary
/// (`call lb31\r\nfff\r\n42`) turned event 3142 into 31, and a complete stream was counted as missing events.
struct ChunkedBody {
    private enum Phase { case head, size, data(Int), dataEnd, plain }
    private var phase = Phase.head
    private var pending: [UInt8] = []

    /// Takes bytes as read from the socket; returns the body bytes they complete.
    mutating func feed(_ bytes: some Collection<UInt8>) -> [UInt8] {
        pending += bytes
        var out: [UInt8] = []
        var index = 0
        loop: while index < pending.count {
            switch phase {
            case .plain:
                out += pending[index...]
                index = pending.count
            case .head:
                guard let end = Self.find([13, 10, 13, 10], in: pending, from: index) else { break loop }
                let head = String(decoding: pending[index..<end], as: UTF8.self).lowercased()
                phase = head.contains("transfer-encoding: chunked") ? .size : .plain
                index = end + 4
            case .size:
                guard let end = Self.find([13, 10], in: pending, from: index) else { break loop }
                let text = String(decoding: pending[index..<end], as: UTF8.self)
                let size = Int(text.split(separator: ";").first.map(String.init) ?? "", radix: 16) ?? 0
                phase = size == 0 ? .plain : .data(size)
                index = end + 2
            case .data(let remaining):
                let take = min(remaining, pending.count - index)
                out += pending[index..<index + take]
                index += take
                phase = take == remaining ? .dataEnd : .data(remaining - take)
            case .dataEnd:
                guard pending.count - index >= 2 else { break loop }
                index += 2
                phase = .size
            }
        }
        pending.removeFirst(index)
        return out
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count - start >= needle.count else { return nil }
        for at in start...(bytes.count - needle.count) where bytes[at] == needle[0] && Array(bytes[at..<at + needle.count]) == needle {
            return at
        }
        return nil
    }
}
