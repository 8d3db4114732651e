import Foundation
import MicroHTTP
import Locking
@testable import PassConsole

/// Reads subscriptions of a ``LiveFeed`` the way the server does (``EventStreamSubscription/read(into:maxLength:park:)``),
/// in process, and parses what they carried: the IDs of the `entitlement` events and any `resync` notice.
final class LiveFeedReader: Sendable {
    struct Received: Sendable {
        var text = ""
        var ended = false
        /// The IDs of the entitlement events, in the order they came.
        var ids: [Int64] {
            messages.filter { $0.event == "entitlement" }.compactMap { $0.id }
        }
        /// The ID a resync notice carried, if one came.
        var resync: Int64? { messages.first { $0.event == "resync" }?.id }

        var messages: [(id: Int64?, event: String?)] {
            text.components(separatedBy: "\n\n").compactMap { block in
                var id: Int64?, event: String?
                for line in block.split(separator: "\n") {
                    if line.hasPrefix("id: ") { id = Int64(line.dropFirst(4)) }
                    if line.hasPrefix("event: ") { event = String(line.dropFirst(7)) }
                }
                return id == nil && event == nil ? nil : (id, event)
            }
        }
    }

    private let streams = Mutex<[(subscription: EventStreamSubscription, received: Received, paused: Bool)]>([])
    private let task = Mutex<Task<Void, Never>?>(nil)

    init() {
        let poller = Task.detached { [weak self] in
            while !Task.isCancelled {
                self?.drain()
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        task.withLock { $0 = poller }
    }

    deinit { task.withLock { $0?.cancel() } }

    /// Starts reading `subscription` (unless `paused`: then it is not read until ``resume(_:)``); returns its index.
    @discardableResult
    func add(_ subscription: EventStreamSubscription, paused: Bool = false) -> Int {
        streams.withLock { streams in
            streams.append((subscription, Received(), paused))
            return streams.count - 1
        }
    }

    func resume(_ index: Int) { streams.withLock { $0[index].paused = false } }

    func received(_ index: Int) -> Received { streams.withLock { $0[index].received } }

    var count: Int { streams.withLock { $0.count } }

    /// Waits until `condition` holds for every stream's received events, or `seconds` pass; true when it held.
    func wait(seconds: Double = 20, until condition: @Sendable ([Received]) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition(streams.withLock { $0.map(\.received) }) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition(streams.withLock { $0.map(\.received) })
    }

    /// Finishes every stream, as the server does when clients leave.
    func finishAll() {
        for stream in streams.withLock({ $0 }) { stream.subscription.finish() }
    }

    private func drain() {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 65536, alignment: 1)
        defer { buffer.deallocate() }
        streams.withLock { streams in
            for index in streams.indices where !streams[index].paused && !streams[index].received.ended {
                reading: while true {
                    switch streams[index].subscription.read(into: buffer, maxLength: 65536, park: {}) {
                    case .bytes(let count):
                        let bytes = UnsafeRawBufferPointer(start: buffer, count: count)
                        streams[index].received.text += String(decoding: bytes, as: UTF8.self)
                    case .parked: break reading
                    case .finished, .overflowed:
                        streams[index].received.ended = true
                        break reading
                    }
                }
            }
        }
    }
}
