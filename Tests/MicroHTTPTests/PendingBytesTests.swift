import Foundation
import Testing
@testable import MicroHTTP

/// A live client's unsent bytes. They used to be a `Data` trimmed with `removeFirst`, which slices and so kept every
/// byte ever queued: `make soak` saw ~400 bytes of RSS per delivered event (1 GB in ten minutes with 20 feeds).
struct PendingBytesTests {
    @Test func bytesSentAreReleasedEvenWhenTheQueueNeverEmpties() {
        var queue = PendingBytes()
        let event = Data(repeating: UInt8(ascii: "x"), count: 1000)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 1)
        defer { buffer.deallocate() }
        var sent = 0
        var largest = 0
        queue.append(event)  // one event always waits: the queue never drains
        for _ in 0..<10_000 {
            for _ in 0..<4 { queue.append(event) }
            sent += queue.take(into: buffer, maxLength: 4000)
            largest = max(largest, queue.retainedByteCount)
        }
        #expect(sent == 40_000_000)
        #expect(queue.count == 1000)
        // 10 MB went through; what is held stays near what waits (compaction drops sent chunks in batches).
        #expect(largest < 256 * 1024, "held \(largest) bytes")
    }

    @Test func bytesComeOutInOrderAcrossChunks() {
        var queue = PendingBytes()
        for text in ["event: a\n", "data: 1\n\n", "", "event: b\ndata: 2\n\n"] { queue.append(Data(text.utf8)) }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 5, alignment: 1)
        defer { buffer.deallocate() }
        var out = Data()
        while !queue.isEmpty {
            let count = queue.take(into: buffer, maxLength: 5)
            out.append(buffer.assumingMemoryBound(to: UInt8.self), count: count)
        }
        #expect(String(decoding: out, as: UTF8.self) == "event: a\ndata: 1\n\nevent: b\ndata: 2\n\n")
    }
}
