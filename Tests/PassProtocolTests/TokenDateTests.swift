import Foundation
import Testing

@testable import PassProtocol

struct TokenDateTests {
    /// 2011-03-19T00:29:34Z, the instant of the seed's example.
    static let seedInstant = Date(timeIntervalSince1970: 1_300_494_574)

    @Test func formatsInUTCWithGMTAndZeroOffset() {
        #expect(TokenDate.format(Self.seedInstant) == "2011/03/19 00:29:34 GMT +0000")
    }

    @Test func parsesTheSeedExampleWithItsPlusTwoHourOffset() {
        #expect(TokenDate.parse("2011/03/19 02:29:34 GMT +0200") == Self.seedInstant)
    }

    @Test func parsesNegativeColonAndGluedOffsets() {
        #expect(TokenDate.parse("2011/03/18 19:29:34 EST -0500") == Self.seedInstant)
        #expect(TokenDate.parse("2011/03/19 02:29:34 GMT+02:00") == Self.seedInstant)
        #expect(TokenDate.parse("2011/03/19 00:29:34 UTC") == Self.seedInstant)
    }

    @Test func roundTripsWholeSeconds() {
        let date = Date(timeIntervalSince1970: 1_767_225_599)  // 2025-12-31T23:59:59Z
        #expect(TokenDate.format(date) == "2025/12/31 23:59:59 GMT +0000")
        #expect(TokenDate.parse(TokenDate.format(date)) == date)
    }

    @Test func dropsSubsecondsWhenFormatting() {
        let date = Self.seedInstant.addingTimeInterval(0.75)
        #expect(TokenDate.format(date) == "2011/03/19 00:29:34 GMT +0000")
    }

    @Test(arguments: [
        "", "2011-03-19 00:29:34 GMT +0000", "2011/03/19", "2011/13/19 00:29:34 GMT +0000",
        "2011/02/31 00:29:34 GMT +0000", "2011/03/19 24:00:00 GMT +0000", "2011/03/19 00:29:34 EET",
        "2011/03/19 00:29:34 GMT +2", "2011/03/19 0a:29:34 GMT +0000", "2011/03/+9 00:29:34 GMT +0000",
        "2011/03/19 00:29:60 GMT +0000",
    ])
    func rejectsMalformedDates(_ text: String) {
        #expect(TokenDate.parse(text) == nil)
    }
}
