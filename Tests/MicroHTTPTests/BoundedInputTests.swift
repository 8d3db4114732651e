import Foundation
@testable import MicroHTTP
import PassTestSupport
import Testing
import WireDates

/// The bounded readers every route uses for numbers, and the date parsing and formatting that must not trap on
/// what a client sends (`If-Modified-Since`) or on dates far out of range.
struct BoundedInputTests {
    static func request(query: [(String, String)] = [], headers: [(String, String)] = []) -> Request {
        Request(method: "GET", path: "/", queryItems: query.map { (name: $0.0, value: $0.1) },
            headers: headers.map { (name: $0.0, value: $0.1) })
    }

    @Test func aQueryIntegerInRangeIsReadAndAnAbsentOneIsTheDefault() throws {
        #expect(try Self.request(query: [("limit", "42")]).query("limit", as: Int.self, in: 1...100, default: 7) == 42)
        #expect(try Self.request().query("limit", as: Int.self, in: 1...100, default: 7) == 7)
        #expect(try Self.request(query: [("limit", "")]).query("limit", as: Int.self, in: 1...100, default: 7) == 7)
    }

    @Test(arguments: ["-1", "0", "101", String(Int.min), String(Int.max), "99999999999999999999", "1e300", "NaN", "nan",
                      " 5", "0x10", String(repeating: "9", count: 10_000), "\u{FFFD}"])
    func anythingElseIsA400NamingTheParameter(text: String) {
        let error = #expect(throws: HTTPError.self) {
            try Self.request(query: [("limit", text)]).query("limit", as: Int.self, in: 1...100, default: 7)
        }
        #expect(error?.status == .badRequest)
        #expect(error?.code == "invalid_parameter")
        #expect(error?.message == "limit must be an integer from 1 to 100.")
        #expect((error?.detail ?? "").count < 100)
    }

    @Test func headersAndDoublesAreCheckedToo() throws {
        #expect(try Self.request(headers: [("X-Count", " 3 ")]).header("x-count", as: Int.self, in: 0...9, default: 0) == 3)
        #expect(throws: HTTPError.self) { try Self.request(headers: [("X-Count", "10")]).header("X-Count", as: Int.self, in: 0...9, default: 0) }
        for bad in ["NaN", "inf", "-inf", "1e300"] {
            #expect(throws: HTTPError.self) { try BoundedInput.number(bad, named: "x", in: -10...10) }
        }
        #expect(try BoundedInput.number("2.5", named: "x", in: -10...10) == 2.5)
        #expect(throws: HTTPError.self) { try BoundedInput.check(Double.nan, named: "x", in: -10...10) }
    }

    struct Body: ValidatedBody {
        var count: Int
        func validate() throws(HTTPError) { try BoundedInput.check(count, named: "count", in: 0...10) }
    }

    @Test func decodeJSONValidatesABodyThatChecksItself() throws {
        let ok = Request(method: "POST", path: "/", body: Data(#"{"count":3}"#.utf8))
        #expect(try ok.decodeJSON(Body.self).count == 3)
        let bad = Request(method: "POST", path: "/", body: Data(#"{"count":9223372036854775807}"#.utf8))
        let error = #expect(throws: HTTPError.self) { try bad.decodeJSON(Body.self) }
        #expect(error?.code == "invalid_parameter")
    }

    @Test func theReadLogNamesWhatAHandlerReads() throws {
        var request = Self.request(query: [("a", "1")], headers: [("X-B", "2")])
        request.readLog = RequestReadLog()
        _ = request.query("a")
        _ = request.header("X-B")
        _ = try? request.decodeJSON(Body.self)
        #expect(request.readLog?.inputs == [.init(source: .query, name: "a"), .init(source: .header, name: "X-B")])
        #expect(request.readLog?.bodyFields == [BodyProbe.Field(path: ["count"], kind: .number)])
    }

    @Test func theRouterListsItsRoutes() {
        var router = Router()
        router.get("/a/{id}") { _ in .text("") }
        router.post("/b/{rest...}") { _ in .text("") }
        #expect(router.registeredRoutes == [.init(method: "GET", pattern: "/a/{id}"), .init(method: "POST", pattern: "/b/{rest...}")])
    }

    @Test(arguments: [
        "Mon, 9223372036854775807 Jan 2020 00:00:00 GMT", "Mon, 01 Jan 9223372036854775807 00:00:00 GMT",
        "Mon, 01 Jan 2020 9223372036854775807:00:00 GMT", "Mon, 01 Jan 2020 00:00:-9223372036854775808 GMT",
        "Mon, 01 Jan -5 00:00:00 GMT", "Mon, 32 Jan 2020 00:00:00 GMT",
    ])
    func httpDatesWithOutOfRangePartsAreNotDates(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test func datesOutsideYears0To9999FormatAsTheNearestEnd() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 1e300)) == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -1e300)).hasSuffix("Jan 0000 00:00:00 GMT"))
        #expect(ISODate.format(Date(timeIntervalSince1970: 1e300)).hasPrefix("9999-12-31T23:59:59."))
        #expect(ISODate.format(Date(timeIntervalSince1970: -9.2e15)) == "0000-01-01T00:00:00.000Z")
        #expect(ISODate.format(Date(timeIntervalSince1970: .nan)) == "0000-01-01T00:00:00.000Z")
        #expect(ISODate.format(Date(timeIntervalSince1970: 784_111_777.12)) == "1994-11-06T08:49:37.120Z")
    }
}
