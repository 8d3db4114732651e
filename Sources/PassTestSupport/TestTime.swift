import Foundation

/// How much slower than a plain debug build this test run may be: `PASS_TEST_TIME_SCALE` (1–100; `make sanitize` sets
/// it, since a sanitizer build runs several times slower), else 1. Tests multiply their wall-clock bounds by it, so
/// a bound keeps its meaning ("other endpoints do not wait the injected second") in every kind of build.
public enum TestTime {
    /// The factor, read once per run.
    public static let scale: Double = {
        guard let text = ProcessInfo.processInfo.environment["PASS_TEST_TIME_SCALE"], let value = Double(text), value.isFinite
        else { return 1 }
        return min(max(value, 1), 100)
    }()

    /// `seconds` scaled.
    public static func seconds(_ seconds: Double) -> Double { seconds * scale }

    /// `milliseconds` scaled.
    public static func milliseconds(_ milliseconds: Int) -> Int { Int(Double(milliseconds) * scale) }
}
