import Foundation

/// An event in the console's wire form (what `POST /api/ingest` reads, one per line): the app, the device, the
/// session and its sequence, the Programmer and MVPD when known, the time, and what happened (`kind`).
enum WireEvent {
    /// The event's JSON line.
    static func line(
        sequence: Int, timestamp: Date, sessionID: UUID, deviceID: String, app: ConsoleReporter.App, requestorID: String?,
        mvpdID: String?, kind: WireJSON
    ) -> String {
        var members: [String: WireJSON] = [
            "app": app.json, "deviceID": .string(deviceID), "kind": kind, "sequence": .int(sequence),
            "sessionID": .string(sessionID.uuidString), "timestamp": .string(WireDate.format(timestamp)),
        ]
        if let requestorID { members["requestorID"] = .string(requestorID) }
        if let mvpdID { members["mvpdID"] = .string(mvpdID) }
        return WireJSON.object(members).text
    }

    /// `{"apiCall":{"arguments":{…},"name":"getAuthorization"}}`.
    static func apiCall(_ name: String, arguments: [String: String]) -> WireJSON {
        .object(["apiCall": .object(["arguments": .object(arguments.mapValues(WireJSON.string)), "name": .string(name)])])
    }

    /// `{"callback":{"callback":{"callback":"setToken",…}}}`: the callback's name beside its arguments.
    static func callback(_ name: String, arguments: [String: WireJSON]) -> WireJSON {
        var members = arguments
        members["callback"] = .string(name)
        return .object(["callback": .object(["callback": .object(members)])])
    }

    /// `{"tracking":{"data":[…],"event":"authorizationDetection"}}`.
    static func tracking(_ event: String, data: [String]) -> WireJSON {
        .object(["tracking": .object(["data": .array(data.map(WireJSON.string)), "event": .string(event)])])
    }

    /// `{"error":{"code":…,"message":…}}`.
    static func error(code: String, message: String) -> WireJSON {
        .object(["error": .object(["code": .string(code), "message": .string(message)])])
    }
}
