import AccessEnabler
import Foundation
import PassHistory

/// `GET /api/events` written straight from the stored rows: the events' stored views (``EventView``, what the live
/// feed sends too), joined by the history into one buffer, and the page's counts and cursor around them.
enum RawEventPage {
    static func json(_ page: RawPage) -> Data {
        var out = Data(capacity: page.events.json.count + 200)
        out.append(contentsOf: "{\"events\":[".utf8)
        // One copy of the rows' bytes (a buffer append is a memcpy; appending the array as a sequence was measured at
        // a twentieth of the page's CPU).
        page.events.json.withUnsafeBufferPointer { out.append($0) }
        var tail = "],\"matching\":\(page.matching),\"matchingCapped\":\(page.matchingCapped),\"nextCursor\":"
        tail += page.nextCursor.map(String.init) ?? "null"
        tail += ",\"total\":\(page.total)"
        if let window = page.window {
            tail += ",\"window\":{\"from\":" + EntitlementEvent.Wire.jsonString(EntitlementEvent.Wire.format(window.lowerBound))
            tail += ",\"until\":" + EntitlementEvent.Wire.jsonString(EntitlementEvent.Wire.format(window.upperBound)) + "}"
        }
        tail += "}"
        out.append(contentsOf: tail.utf8)
        return out
    }
}
