import PassEvents
import Foundation
import Testing

/// The wire's dates are built by hand for speed; they must read exactly as Foundation's ISO 8601 style writes them.
struct WireDateTests {
    @Test func theHandBuiltISODateIsFoundationsTextForAnyDate() {
        var generator = SystemRandomNumberGenerator()
        let fixed: [Double] = [0, -0.001, -1, 0.0005, 0.9999, 951_782_400, 1_795_000_000.123, 4_102_444_799.999, -2_208_988_800.5]
        let random = (0..<2000).map { _ in Double.random(in: -4_000_000_000...8_000_000_000, using: &generator) }
        for seconds in fixed + random {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(EntitlementEvent.Wire.format(date) == date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)),
                "\(seconds)")
        }
    }

    @Test func whatIsWrittenReadsBackToTheMillisecond() throws {
        let date = Date(timeIntervalSince1970: 1_795_000_000.123)
        let text = EntitlementEvent.Wire.format(date)
        // Truncated from the seconds since 2001 a Date holds (816692800.12299990…), as Foundation writes it.
        #expect(text == "2026-11-18T11:06:40.122Z")
        let read = try #require(EntitlementEvent.Wire.parse(text))
        #expect(abs(read.timeIntervalSince(date)) < 0.001)
    }
}
