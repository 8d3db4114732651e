import Foundation

/// One Server-Sent Event: an optional `id` (for `Last-Event-ID` resume), an optional event name, and data.
public struct ServerSentEvent: Sendable, Equatable {
    /// The event's sequence number in its stream; clients send it back as `Last-Event-ID`.
    public var id: UInt64?
    /// The event name (`event:` field); `nil` means the default `message`.
    public var event: String?
    /// The payload; newlines become several `data:` lines.
    public var data: String

    /// Creates an event.
    public init(id: UInt64? = nil, event: String? = nil, data: String) {
        self.id = id
        self.event = event
        self.data = data
    }

    /// The wire form, ending with the blank line that dispatches it.
    public var encoded: Data {
        var text = ""
        if let id { text += "id: \(id)\n" }
        if let event { text += "event: \(event)\n" }
        for line in data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
        return Data((text + "\n").utf8)
    }
}
