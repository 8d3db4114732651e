import DecodingWords
import AccessEnabler
import Foundation
import MicroHTTP

/// The console API's JSON: sorted keys and ISO 8601 dates with milliseconds, the same as the events' wire form.
enum APICoding {
    static func encoder() -> JSONEncoder {
        let encoder = EntitlementEvent.Wire.encoder()
        return encoder
    }

    static func encode(_ value: some Encodable) throws -> Data { try encoder().encode(value) }
}

extension Response {
    /// A value as the console API's JSON.
    static func api(_ value: some Encodable, status: HTTPStatus = .ok) -> Response {
        do {
            return .json(data: try APICoding.encode(value), status: status)
        } catch {
            return HTTPError(.internalServerError, code: "encoding_failed", message: "The answer could not be encoded.")
                .response
        }
    }

    /// A file the browser saves (`Content-Disposition: attachment`).
    static func download(_ data: Data, filename: String, contentType: String) -> Response {
        Response(
            headers: [("Content-Type", contentType), ("Content-Disposition", attachment(filename)), ("Cache-Control", "no-store")],
            body: .data(data))
    }

    /// `attachment; filename="…"` with a name that is safe as a file name anywhere: letters, digits, `.`, `_` and `-`
    /// kept, every other character (`/` of a storage domain `phone/team:TEAM1234`, `\`, `:`, quotes, spaces, control
    /// characters) a `-`, no leading dot, at most 200 bytes. Every download's name passes through here.
    static func attachment(_ filename: String) -> String {
        var safe = String(String.UnicodeScalarView(filename.unicodeScalars.map { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._-".unicodeScalars.contains(scalar)) ? scalar : "-"
        }))
        while safe.hasPrefix(".") { safe.removeFirst() }
        if safe.utf8.count > 200 { safe = String(safe.prefix(200)) }
        return "attachment; filename=\"\(safe.isEmpty ? "passconsole-download" : safe)\""
    }
}

extension Request {
    /// A JSON body decoded with the console's date format; `400 invalid_json` with the reason otherwise.
    /// A ``ValidatedBody`` is checked after decoding (`400 invalid_parameter` for a number out of range).
    func decodeAPI<T: Decodable>(_ type: T.Type) throws -> T {
        readLog?.recordBody(type)
        let value: T
        do {
            value = try EntitlementEvent.Wire.decoder().decode(type, from: body.isEmpty ? Data("{}".utf8) : body)
        } catch {
            throw HTTPError(.badRequest, code: "invalid_json", message: "The request body is not the JSON this endpoint takes.",
                detail: DecodingError.words(error))
        }
        if let checked = value as? any ValidatedBody { try checked.validate() }
        return value
    }

    /// A boolean query flag: `true`, `1`, `yes`.
    func flag(_ name: String) -> Bool {
        guard let value = query(name)?.lowercased() else { return false }
        return ["true", "1", "yes", "on"].contains(value)
    }
}

extension KeyedDecodingContainer {
    /// An optional field that is given or left out, never `null`: the API's documents say "string", and reading
    /// `null` as "left out" could change what a request means (a clear that widens, credentials that vanish).
    func decodeUnlessNull<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard contains(key) else { return nil }
        if try decodeNil(forKey: key) {
            throw DecodingError.typeMismatch(type, .init(codingPath: codingPath + [key],
                debugDescription: "\(key.stringValue) may be left out, but not null."))
        }
        return try decode(type, forKey: key)
    }
}
