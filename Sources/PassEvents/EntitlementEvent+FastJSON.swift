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
        return writer.text
    }

    /// Appends ``fastJSON(dates:)``'s bytes to `bytes` (the history writes each event's view as bytes).
    package func writeFastJSON(into bytes: inout [UInt8], dates: JSONDates) {
        var writer = FastJSONWriter(dates: dates, output: JSONBytes(bytes: bytes))
        bytes = []  // the writer holds the only reference: appending never copies
        writer.event(self)
        bytes = writer.output.bytes
    }
}

/// UTF-8 bytes being written: appending to an array of bytes skips the per-append bookkeeping of a `String` (its
/// counts and flags), which was a third of encoding an event.
struct JSONBytes {
    var bytes: [UInt8] = []

    static func += (output: inout JSONBytes, text: String) {
        output.bytes.append(contentsOf: text.utf8)
    }
}

/// Writes JSON objects with keys in byte order, as `JSONEncoder`'s `.sortedKeys` does.
struct FastJSONWriter {

    let dates: EntitlementEvent.JSONDates
    var output = JSONBytes()

    init(dates: EntitlementEvent.JSONDates, capacity: Int = 512) {
        self.dates = dates
        output.bytes.reserveCapacity(capacity)
    }

    init(dates: EntitlementEvent.JSONDates, output: JSONBytes) {
        self.dates = dates
        self.output = output
    }

    /// What was written, as text.
    var text: String { String(decoding: output.bytes, as: UTF8.self) }

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
            if let served = exchange.served {
                output += ",\"served\":"
                servedFacts(served)
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

    /// ``EntitlementCallback``'s own Codable form: the callback's name under `callback`, its arguments beside it, in
    /// byte order of their names as `.sortedKeys` writes them (written in that order by hand: sorting an array of
    /// closures for every callback cost more than writing it; the byte-for-byte test covers every case).
    mutating func callback(_ callback: EntitlementCallback) {
        output += "{"
        switch callback {
        case .setRequestorComplete(let status):
            name(of: callback)
            output += ",\"status\":" + String(status)
        case .setAuthenticationStatus(let status, let errorCode):
            name(of: callback)
            output += ",\"errorCode\":"
            optional(errorCode)
            output += ",\"status\":" + String(status)
        case .displayProviderDialog(let mvpds):
            name(of: callback)
            output += ",\"mvpds\":["
            for (index, mvpd) in mvpds.enumerated() {
                if index > 0 { output += "," }
                self.mvpd(mvpd)
            }
            output += "]"
        case .navigateToUrl(let url, let useSVC):
            name(of: callback)
            output += ",\"url\":"
            string(url)
            if let useSVC { output += ",\"useSVC\":" + (useSVC ? "true" : "false") }
        case .setToken(let token, let resource):
            name(of: callback)
            output += ",\"resource\":"
            string(resource)
            output += ",\"token\":"
            string(token)
        case .tokenRequestFailed(let resource, let errorCode, let errorDescription):
            name(of: callback)
            output += ",\"errorCode\":"
            string(errorCode)
            output += ",\"errorDescription\":"
            optional(errorDescription)
            output += ",\"resource\":"
            string(resource)
        case .selectedProvider(let mvpd):
            name(of: callback)
            output += ",\"mvpd\":"
            if let mvpd { self.mvpd(mvpd) } else { output += "null" }
        case .sendTrackingData(let event, let data):
            name(of: callback)
            output += ",\"data\":"
            array(data)
            output += ",\"event\":"
            string(event.rawValue)
        case .setMetadataStatus(let metadata, let encrypted, let key, let arguments):
            output += "\"arguments\":"
            if let arguments { dictionary(arguments) } else { output += "null" }
            output += ","
            name(of: callback)
            output += ",\"encrypted\":" + (encrypted ? "true" : "false")
            output += ",\"key\":" + String(key)
            output += ",\"metadata\":"
            if let metadata { json(metadata) } else { output += "null" }
        case .preauthorizedResources(let resources):
            name(of: callback)
            output += ",\"resources\":"
            array(resources)
        case .presentTvProviderDialog, .dismissTvProviderDialog:
            name(of: callback)
        case .status(let dictionary):
            name(of: callback)
            output += ",\"statusDictionary\":"
            self.dictionary(dictionary)
        }
        output += "}"
    }

    /// The `callback` member: the callback's name.
    private mutating func name(of callback: EntitlementCallback) {
        output += "\"callback\":"
        string(callback.name)
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

    /// ``ServedFacts`` with its keys in byte order, absent values left out (as its synthesized `Codable` does).
    mutating func servedFacts(_ facts: ServedFacts) {
        var first = true
        func key(_ name: String) {
            output += first ? "{\"" : ",\""
            output += name
            output += "\":"
            first = false
        }
        if let value = facts.advancedStatus { key("advancedStatus"); string(value) }
        if let value = facts.change { key("change"); string(value.rawValue) }
        key("client"); string(facts.client.rawValue)
        if let value = facts.operation { key("operation"); string(value) }
        if let value = facts.passSFP { key("passSFP"); string(value) }
        if let value = facts.pendingLogout { key("pendingLogout"); output += value ? "true" : "false" }
        key("recorder"); string(facts.recorder.rawValue)
        if let value = facts.registrationCode { key("registrationCode"); string(value) }
        if let value = facts.rule { key("rule"); string(value) }
        if let value = facts.token { key("token"); string(value) }
        if let value = facts.userID { key("userID"); string(value) }
        if let value = facts.username { key("username"); string(value) }
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
        // One member (most arguments): nothing to sort.
        guard values.count > 1 else {
            for (key, value) in values {
                string(key)
                output += ":"
                string(value)
            }
            output += "}"
            return
        }
        for (index, member) in values.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }).enumerated() {
            if index > 0 { output += "," }
            string(member.key)
            output += ":"
            string(member.value)
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
        output.bytes.append(contentsOf: text)
    }

    /// A JSON string: `"` and `\` escaped, control characters as `\n`-style or `\u00XX` escapes, `/` left alone.
    mutating func string(_ value: String) {
        JSONText.appendString(value, to: &output.bytes)
    }
}
