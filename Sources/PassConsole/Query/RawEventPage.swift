import AccessEnabler
import Foundation
import PassHistory

/// `GET /api/events` written straight from the stored rows: the events' stored views (``EventView``, what the live
/// feed sends too), joined by the history into one buffer, and the page's counts and cursor around them.
enum RawEventPage {
    static func json(_ page: RawPage) -> Data {
        var out = Data()
        out.reserveCapacity(page.events.json.count + 200)
        out.append(contentsOf: "{\"events\":[".utf8)
        out.append(contentsOf: page.events.json)
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
