extension Sequence where Element == UInt8 {
    /// Lower-case hexadecimal, two digits per byte (by hand: `String(format: "%02x")` per byte goes through CFString).
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        for byte in self {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
