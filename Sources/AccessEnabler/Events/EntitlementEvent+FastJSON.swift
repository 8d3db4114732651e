import Foundation
import PassProtocol

extension EntitlementEvent {
    /// How dates are written by ``fastJSON(dates:)``.
    public enum JSONDates: Sendable {
        /// Seconds since 2001-01-01 as a number (`JSONEncoder`'s `.deferredToDate`): exact, for storage.
        case referenceSeconds
        /// ISO 8601 UTC with milliseconds (the ``Wire`` form).
        case iso8601
    }

    /// The event as JSON, byte for byte what `JSONEncoder` with `[.sortedKeys, .withoutEscapingSlashes]` writes (a
    /// test holds the two equal for every kind of event), about ten times faster: the history stores hundreds of
    /// thousands of events, and Foundation's encoder cost more than SQLite's own work.
    public func fastJSON(dates: JSONDates = .referenceSeconds) -> String {
        var writer = FastJSONWriter(dates: dates)
        writer.event(self)
        return writer.output
    }
}

/// Writes JSON objects with keys in byte order, as `JSONEncoder`'s `.sortedKeys` does.
struct FastJSONWriter {
    let dates: EntitlementEvent.JSONDates
    var output = ""

    init(dates: EntitlementEvent.JSONDates, capacity: Int = 512) {
        self.dates = dates
        output.reserveCapacity(capacity)
    }

    mutating func event(_ event: EntitlementEvent) {
        output += "{\"app\":{\"bundleID\":"
        string(event.app.bundleID)
        output += ",\"platform\":"
        string(event.app.platform.rawValue)
        output += ",\"teamID\":"
        string(event.app.teamID)
        output += "},\"deviceID\":"
        string(event.deviceID)
        output += ",\"kind\":"
        kind(event.kind)
        if let mvpd = event.mvpdID {
            output += ",\"mvpdID\":"
            string(mvpd)
        }
        if let requestor = event.requestorID {
            output += ",\"requestorID\":"
            string(requestor)
        }
        output += ",\"sequence\":"
        output += String(event.sequence)
        output += ",\"sessionID\":"
        uuid(event.sessionID)
        output += ",\"timestamp\":"
        date(event.timestamp)
        output += "}"
    }

    mutating func kind(_ kind: EntitlementEvent.Kind) {
        switch kind {
        case .apiCall(let method, let arguments):
            output += "{\"apiCall\":{\"arguments\":"
            dictionary(arguments)
            output += ",\"name\":"
            string(method.rawValue)
            output += "}}"
        case .stateChanged(let flow, let from, let to):
            output += "{\"stateChanged\":{\"flow\":"
            string(flow.rawValue)
            output += ",\"from\":"
            string(from.rawValue)
            output += ",\"to\":"
            string(to.rawValue)
            output += "}}"
        case .httpExchange(let exchange):
            output += "{\"httpExchange\":{\"exchange\":{\"durationMs\":"
            double(exchange.durationMs)
            if let errorCode = exchange.errorCode {
                output += ",\"errorCode\":"
                string(errorCode)
            }
            if let failure = exchange.failure {
                output += ",\"failure\":"
                string(failure)
            }
            output += ",\"headers\":"
            dictionary(exchange.headers)
            output += ",\"method\":"
            string(exchange.method)
            output += ",\"parameters\":"
            dictionary(exchange.parameters)
            if let body = exchange.responseBody {
                output += ",\"responseBody\":"
                string(body)
            }
            if let serverDate = exchange.serverDate {
                output += ",\"serverDate\":"
                date(serverDate)
            }
            if let status = exchange.status {
                output += ",\"status\":"
                output += String(status)
            }
            output += ",\"url\":"
            string(exchange.url)
            output += "}}}"
        case .storageChanged(let domain, let change):
            output += "{\"storageChanged\":{\"change\":"
            string(change)
            output += ",\"domain\":"
            string(domain)
            output += "}}"
        case .callback(let callback):
            output += "{\"callback\":{\"callback\":"
            self.callback(callback)
            output += "}}"
        case .tracking(let event, let data):
            output += "{\"tracking\":{\"data\":"
            array(data)
            output += ",\"event\":"
            string(event.rawValue)
            output += "}}"
        case .error(let code, let message):
            output += "{\"error\":{\"code\":"
            string(code)
            output += ",\"message\":"
            string(message)
            output += "}}"
        }
    }

    /// ``EntitlementCallback``'s own Codable form: the callback's name under `callback`, its arguments beside it.
    mutating func callback(_ callback: EntitlementCallback) {
        var fields: [(String, (inout FastJSONWriter) -> Void)] = [("callback", { $0.string(callback.name) })]
        switch callback {
        case .setRequestorComplete(let status): fields.append(("status", { $0.output += String(status) }))
        case .setAuthenticationStatus(let status, let errorCode):
            fields.append(("status", { $0.output += String(status) }))
            fields.append(("errorCode", { $0.optional(errorCode) }))
        case .displayProviderDialog(let mvpds):
            fields.append(("mvpds", { writer in
                writer.output += "["
                for (index, mvpd) in mvpds.enumerated() {
                    if index > 0 { writer.output += "," }
                    writer.mvpd(mvpd)
                }
                writer.output += "]"
            }))
        case .navigateToUrl(let url, let useSVC):
            fields.append(("url", { $0.string(url) }))
            if let useSVC { fields.append(("useSVC", { $0.output += useSVC ? "true" : "false" })) }
        case .setToken(let token, let resource):
            fields.append(("token", { $0.string(token) }))
            fields.append(("resource", { $0.string(resource) }))
        case .tokenRequestFailed(let resource, let errorCode, let errorDescription):
            fields.append(("resource", { $0.string(resource) }))
            fields.append(("errorCode", { $0.string(errorCode) }))
            fields.append(("errorDescription", { $0.optional(errorDescription) }))
        case .selectedProvider(let mvpd):
            fields.append(("mvpd", { writer in
                if let mvpd { writer.mvpd(mvpd) } else { writer.output += "null" }
            }))
        case .sendTrackingData(let event, let data):
            fields.append(("event", { $0.string(event.rawValue) }))
            fields.append(("data", { $0.array(data) }))
        case .setMetadataStatus(let metadata, let encrypted, let key, let arguments):
            fields.append(("metadata", { writer in
                if let metadata { writer.json(metadata) } else { writer.output += "null" }
            }))
            fields.append(("encrypted", { $0.output += encrypted ? "true" : "false" }))
            fields.append(("key", { $0.output += String(key) }))
            fields.append(("arguments", { writer in
                if let arguments { writer.dictionary(arguments) } else { writer.output += "null" }
            }))
        case .preauthorizedResources(let resources): fields.append(("resources", { $0.array(resources) }))
        case .presentTvProviderDialog, .dismissTvProviderDialog: break
        case .status(let dictionary): fields.append(("statusDictionary", { $0.dictionary(dictionary) }))
        }
        output += "{"
        for (index, field) in fields.sorted(by: { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }).enumerated() {
            if index > 0 { output += "," }
            string(field.0)
            output += ":"
            field.1(&self)
        }
        output += "}"
    }

    mutating func mvpd(_ mvpd: MVPD) {
        output += "{\"ID\":"
        string(mvpd.ID)
        if let boarding = mvpd.boardingStatus {
            output += ",\"boardingStatus\":"
            string(boarding)
        }
        output += ",\"displayName\":"
        string(mvpd.displayName)
        output += ",\"enablePlatformServices\":" + (mvpd.enablePlatformServices ? "true" : "false")
        output += ",\"hasAuthNPerRequestor\":" + (mvpd.hasAuthNPerRequestor ? "true" : "false")
        output += ",\"logoURL\":"
        string(mvpd.logoURL)
        output += ",\"passiveAuthnEnabled\":" + (mvpd.passiveAuthnEnabled ? "true" : "false")
        output += ",\"useSVC\":" + (mvpd.useSVC ? "true" : "false")
        output += "}"
    }

    mutating func optional(_ value: String?) {
        if let value { string(value) } else { output += "null" }
    }

    /// Any JSON value, as `JSONEncoder` writes ``JSONValue`` (object keys in byte order).
    mutating func json(_ value: JSONValue) {
        switch value {
        case .string(let text): string(text)
        case .number(let number): double(number)
        case .bool(let flag): output += flag ? "true" : "false"
        case .null: output += "null"
        case .array(let items):
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += "," }
                json(item)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, key) in members.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                if index > 0 { output += "," }
                string(key)
                output += ":"
                json(members[key]!)
            }
            output += "}"
        }
    }

    mutating func array(_ values: [String]) {
        output += "["
        for (index, value) in values.enumerated() {
            if index > 0 { output += "," }
            string(value)
        }
        output += "]"
    }

    mutating func dictionary(_ values: [String: String]) {
        output += "{"
        for (index, key) in values.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
            if index > 0 { output += "," }
            string(key)
            output += ":"
            string(values[key]!)
        }
        output += "}"
    }

    mutating func date(_ date: Date) {
        switch dates {
        case .referenceSeconds: double(date.timeIntervalSinceReferenceDate)
        case .iso8601: string(EntitlementEvent.Wire.format(date))
        }
    }

    /// As `JSONEncoder`: the shortest form that reads back exactly, without a trailing `.0`.
    mutating func double(_ value: Double) {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        output += text
    }

    /// `id.uuidString` as a JSON string, written by hand: Foundation formats it with `snprintf` on Linux.
    mutating func uuid(_ id: UUID) {
        let digits: StaticString = "0123456789ABCDEF"
        var text = [UInt8](repeating: 0x2D, count: 38)  // '-' where no digit goes
        text[0] = 0x22
        text[37] = 0x22
        withUnsafeBytes(of: id.uuid) { bytes in
            var position = 1
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 { position += 1 }
                text[position] = digits.utf8Start[Int(byte >> 4)]
                text[position + 1] = digits.utf8Start[Int(byte & 0x0F)]
                position += 2
            }
        }
        output.append(String(decoding: text, as: UTF8.self))
    }

    /// A JSON string: `"` and `\` escaped, control characters as `\n`-style or `\u00XX` escapes, `/` left alone.
    mutating func string(_ value: String) {
        JSONText.appendString(value, to: &output)
    }
}
