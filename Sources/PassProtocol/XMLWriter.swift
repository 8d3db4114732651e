/// Builds compact XML text: no declaration, no whitespace between elements, every value escaped.
///
/// Compactness matters: the Android 1.8 parser rejects whitespace text nodes between configuration
/// elements (spec §5.2.1), so everything PassProtocol renders goes through this writer.
struct XMLWriter {
    /// The XML written so far.
    private(set) var output = ""

    /// Writes `<name>escaped text</name>`.
    mutating func element(_ name: String, _ text: String) {
        output += "<\(name)>\(XMLEscaping.escape(text))</\(name)>"
    }

    /// Writes escaped text (inside an element opened with ``element(_:attributes:_:)``).
    mutating func text(_ text: String) {
        output += XMLEscaping.escape(text)
    }

    /// Writes `<name>…</name>` when `text` is not `nil`; nothing otherwise.
    mutating func optionalElement(_ name: String, _ text: String?) {
        if let text { element(name, text) }
    }

    /// Writes an element whose content is produced by `body`, with optional attributes.
    mutating func element(
        _ name: String,
        attributes: KeyValuePairs<String, String> = [:],
        _ body: (inout XMLWriter) -> Void
    ) {
        output += "<\(name)"
        for (key, value) in attributes {
            output += " \(key)=\"\(XMLEscaping.escape(value))\""
        }
        output += ">"
        body(&self)
        output += "</\(name)>"
    }

    /// Writes an empty element with attributes, as `<name key="value"/>`.
    mutating func emptyElement(_ name: String, attributes: KeyValuePairs<String, String>) {
        output += "<\(name)"
        for (key, value) in attributes {
            output += " \(key)=\"\(XMLEscaping.escape(value))\""
        }
        output += "/>"
    }

    /// Returns the XML produced by `body` on a fresh writer.
    static func render(_ body: (inout XMLWriter) -> Void) -> String {
        var writer = XMLWriter()
        body(&writer)
        return writer.output
    }
}
