import Foundation
import MicroHTTP
import Testing

/// `application/x-www-form-urlencoded` bodies as the backend's SDK routes read them: tokens, UTF-8, bad escapes.
struct FormEncodingTests {
    private func post(_ body: String, type: String = "application/x-www-form-urlencoded; charset=utf-8") -> Request {
        Request(method: "POST", path: "/f", queryItems: [("q", "from-query"), ("only", "query")],
                headers: [("content-type", type)], body: Data(body.utf8))
    }

    @Test func decodesEscapesPlusAndUTF8() {
        let token = "<signatureInfo>MEY+/=</signatureInfo><a b=\"c\">é 日本</a>"
        let request = post("authentication_token=" + FormEncoding.escape(token) + "&name=J%C3%BCrgen+M%C3%BCller&empty=&flag")
        #expect(request.parameter("authentication_token") == token)
        #expect(request.parameter("name") == "Jürgen Müller")
        #expect(request.parameter("empty") == "")
        #expect(request.parameter("flag") == "")
        #expect(FormEncoding.decode("a=%3c%3E").map(\.value) == ["<>"])
        #expect(request.formItems.map(\.name) == ["authentication_token", "name", "empty", "flag"])
    }

    @Test func bodyWinsOverQueryAndQueryFillsTheRest() {
        let request = post("q=from-body")
        #expect(request.parameter("q") == "from-body")
        #expect(request.parameter("only") == "query")
        #expect(request.parameterAll("q") == ["from-body", "from-query"])
    }

    @Test func malformedEscapesAreNotGuessed() {
        // A bad escape in a name drops the pair; in a value it reads as empty (never half-decoded bytes).
        let items = FormEncoding.decode("b%zz=1&ok=%41%42&v=%4&w=%FF&x=%e2%82%ac")
        #expect(items.map(\.name) == ["ok", "v", "w", "x"])
        #expect(items.map(\.value) == ["AB", "", "", "€"])
    }

    @Test func onlyFormBodiesAreParsedAndChangesAreSeen() {
        var request = post("user=ann", type: "application/json")
        #expect(request.formItems.isEmpty)
        #expect(request.parameter("user") == nil)
        request.headers = [("Content-Type", "application/x-www-form-urlencoded")]
        #expect(request.parameter("user") == "ann")
        request.body = Data("user=bob".utf8)
        #expect(request.parameter("user") == "bob")
    }
}
