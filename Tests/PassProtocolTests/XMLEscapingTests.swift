import Testing

@testable import PassProtocol

struct XMLEscapingTests {
    @Test func escapesTheFivePredefinedEntities() {
        #expect(XMLEscaping.escape(#"a&b<c>d"e'f"#) == "a&amp;b&lt;c&gt;d&quot;e&apos;f")
    }

    @Test func textWithoutSpecialsIsUnchangedAndMultiByteCharactersSurvive() {
        #expect(XMLEscaping.escape("Dish-Network_ü-📺 42") == "Dish-Network_ü-📺 42")
        #expect(XMLEscaping.escape("Çà & 📺<é\u{301}>") == "Çà &amp; 📺&lt;é\u{301}&gt;")
        // An & followed by a combining mark is still escaped (a byte scan, not a grapheme one).
        #expect(XMLEscaping.escape("&\u{301}") == "&amp;\u{301}")
    }

    @Test func unescapeInvertsEscape() {
        let text = #"<signatureInfo>MEUC+/=<signatureInfo><x a="1">Tom & 'Jerry'</x>"#
        #expect(XMLEscaping.unescape(XMLEscaping.escape(text)) == text)
    }

    @Test func unescapeDecodesNumericReferencesAndLeavesUnknownOnesAlone() {
        #expect(XMLEscaping.unescape("&#60;&#x3E;&#X41;") == "<>A")
        #expect(XMLEscaping.unescape("&nbsp; & &amp") == "&nbsp; & &amp")
    }

    @Test func bareAmpersandsAreEscapedButReferencesAreKept() {
        #expect(XMLEscaping.escapeBareAmpersands("Tom & Jerry &amp; &#38; &x") == "Tom &amp; Jerry &amp; &#38; &amp;x")
    }

    @Test func referencesNextToMultiByteCharactersAreDecodedAndTheCharactersKept() {
        #expect(XMLEscaping.unescape("📺&lt;é\u{301}&gt;Çà&amp;ü") == "📺<é\u{301}>Çà&ü")
        // An & before a combining mark is a bare & (a byte scan: the mark is not part of a name)
        #expect(XMLEscaping.escapeBareAmpersands("a&\u{301}b") == "a&amp;\u{301}b")
        #expect(XMLEscaping.unescape("&#x1F4FA; &#233;") == "📺 é")
    }

    @Test func aReferenceNameLongerThanElevenCharactersIsNotAReference() {
        #expect(XMLEscaping.escapeBareAmpersands("&abcdefghijk;") == "&abcdefghijk;")
        #expect(XMLEscaping.escapeBareAmpersands("&abcdefghijkl;") == "&amp;abcdefghijkl;")
        #expect(XMLEscaping.escapeBareAmpersands("&a-b;") == "&amp;a-b;")
        #expect(XMLEscaping.escapeBareAmpersands("&;") == "&amp;;")
    }
}
