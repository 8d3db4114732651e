import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A parsed XML element: name, attributes, child elements and its own text, trimmed.
///
/// PassProtocol's documents are small and flat, so a tree is the simplest thing to read them from. Text is
/// trimmed of surrounding whitespace because the seed prints token bodies indented (spec seed 002 §Format).
struct XMLNode: Sendable, Equatable {
    /// The element's qualified name as written, e.g. `ns2:regcode`.
    var name: String
    /// The element's attributes.
    var attributes: [String: String] = [:]
    /// The child elements, in document order.
    var children: [XMLNode] = []
    /// The element's direct text and CDATA, trimmed of surrounding whitespace.
    var text: String = ""

    /// The first child named `name`, if any.
    func child(_ name: String) -> XMLNode? {
        children.first { $0.name == name }
    }

    /// All children named `name`.
    func children(_ name: String) -> [XMLNode] {
        children.filter { $0.name == name }
    }

    /// The text of the first child named `name`, if such a child exists.
    func text(of name: String) -> String? {
        child(name)?.text
    }

    /// Parses `xml` into its root element.
    ///
    /// Bare `&` characters are escaped first (see ``XMLEscaping``), so a sloppy resource ID does not fail a
    /// whole token.
    ///
    /// - Throws: ``PayloadFormatError`` when the text is not well-formed XML.
    static func parse(_ xml: String) throws(PayloadFormatError) -> XMLNode {
        let data = Data(XMLEscaping.escapeBareAmpersands(xml).utf8)
        let parser = XMLParser(data: data)
        let builder = TreeBuilder()
        parser.delegate = builder
        let succeeded = parser.parse()
        guard succeeded, let root = builder.root else {
            let detail = parser.parserError.map { "\($0.localizedDescription)" } ?? "no root element"
            throw PayloadFormatError("not well-formed XML (\(detail), line \(parser.lineNumber))")
        }
        return root
    }
}

/// Collects `XMLParser` events into an ``XMLNode`` tree. Lives only for one `parse` call.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    private var stack: [XMLNode] = []
    private(set) var root: XMLNode?

    func parser(
        _ parser: XMLParser,
        didStartElement elementName: String,
        namespaceURI: String?,
        qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        stack.append(XMLNode(name: qualifiedName ?? elementName, attributes: attributes))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += string
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += String(decoding: CDATABlock, as: UTF8.self)
    }

    func parser(
        _ parser: XMLParser,
        didEndElement elementName: String,
        namespaceURI: String?,
        qualifiedName: String?
    ) {
        guard var node = stack.popLast() else { return }
        node.text = XMLWhitespace.trimmed(node.text)
        if stack.isEmpty {
            root = node
        } else {
            stack[stack.count - 1].children.append(node)
        }
    }
}
