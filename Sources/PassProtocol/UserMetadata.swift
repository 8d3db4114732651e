import Foundation

/// User metadata: the answer of `GET /api/v1/tokens/usermetadata` and the JSON inside `<userMeta>`
/// (spec §6.5, §5.4.3 #16).
///
/// JSON `{"updated": <time>, "encrypted": ["<key>", …], "data": {"zip": [...], "householdID": "…", …}}`.
/// Encrypted items hold Base64 RSA ciphertext for the Programmer; PassConsole treats them as opaque text.
public struct UserMetadata: RESTPayload {
    /// When the metadata last changed; newer metadata (larger value) replaces older.
    public var updated: Int64
    /// The keys of ``data`` whose values are encrypted for the Programmer.
    public var encrypted: [String]
    /// The metadata items by name, e.g. `zip`, `maxRating`, `householdID`, `userID`.
    public var data: [String: JSONValue]

    /// Creates user metadata.
    public init(updated: Int64, encrypted: [String] = [], data: [String: JSONValue]) {
        self.updated = updated
        self.encrypted = encrypted
        self.data = data
    }

    /// Whether the item `name` is encrypted.
    public func isEncrypted(_ name: String) -> Bool {
        encrypted.contains(name)
    }

    /// The JSON text, as carried inside `<userMeta>` in SDK answers.
    public var jsonText: String {
        String(decoding: json(), as: UTF8.self)
    }

    /// `<userMetadata><updated/><encrypted>key</encrypted>…<data>…</data></userMetadata>` (our choice of
    /// names; undocumented). Data items render as described in ``JSONValue``: one element per key, arrays
    /// as repeated elements.
    public func xml() -> String {
        XMLWriter.render { xml in
            xml.element("userMetadata") { xml in
                xml.element("updated", String(updated))
                for name in encrypted { xml.element("encrypted", name) }
                JSONValue.object(data).write(named: "data", into: &xml)
            }
        }
    }
}
