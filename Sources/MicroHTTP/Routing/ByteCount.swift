/// Sizes in words for people: `16 MB`, `1.5 MB`, `8 KB`, `512 bytes`. The one formatter for byte counts in
/// messages (the server's `413` and `414`, the console's limits); binary units, as the limits are set (`16 << 20`
/// is `16 MB`).
public enum ByteCount {
    /// `count` in the largest unit it reaches, with one decimal when it is not whole (`16.2 MB`).
    public static func text(_ count: Int) -> String {
        let units = [(1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB")]
        for (size, unit) in units where count >= size {
            let value = Double(count) / Double(size)
            let rounded = (value * 10).rounded() / 10
            return rounded == rounded.rounded() ? "\(Int(rounded)) \(unit)" : "\(rounded) \(unit)"
        }
        return count == 1 ? "1 byte" : "\(count) bytes"
    }
}
