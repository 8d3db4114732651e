/// Which of a block's 256 events (event IDs `block << 8` … `block << 8 + 255`) have a property: one bit per event,
/// stored as four 64-bit integer columns `b0`…`b3` of `event_facet`, so SQLite can merge them with `|`.
struct BlockBits: Equatable, Sendable {
    /// Events per block, and how far an event ID shifts to give its block.
    static let size: Int64 = 256
    static let shift: Int64 = 8

    var words: SIMD4<UInt64>

    static let none = BlockBits(words: .zero)
    static let all = BlockBits(words: SIMD4(repeating: .max))

    init(words: SIMD4<UInt64>) { self.words = words }

    /// The block an event ID falls in.
    static func block(of id: Int64) -> Int64 { id >> shift }

    /// The first event ID of `block`.
    static func firstID(of block: Int64) -> Int64 { block << shift }

    /// Sets the bit of event `id` (which must fall in this block).
    mutating func insert(_ id: Int64) {
        let offset = Int(id & (Self.size - 1))
        words[offset >> 6] |= 1 << UInt64(offset & 63)
    }

    var isEmpty: Bool { words == .zero }

    /// How many bits are set.
    var count: Int { words[0].nonzeroBitCount + words[1].nonzeroBitCount + words[2].nonzeroBitCount + words[3].nonzeroBitCount }

    static func | (lhs: BlockBits, rhs: BlockBits) -> BlockBits { BlockBits(words: lhs.words | rhs.words) }
    static func & (lhs: BlockBits, rhs: BlockBits) -> BlockBits { BlockBits(words: lhs.words & rhs.words) }
    /// The bits of `lhs` not in `rhs`.
    static func - (lhs: BlockBits, rhs: BlockBits) -> BlockBits { BlockBits(words: lhs.words & ~rhs.words) }

    /// The event IDs whose bits are set, in `block`, ascending.
    func ids(in block: Int64) -> [Int64] {
        var ids: [Int64] = []
        ids.reserveCapacity(count)
        let first = Self.firstID(of: block)
        for word in 0..<4 {
            var bits = words[word]
            while bits != 0 {
                ids.append(first + Int64(word * 64 + bits.trailingZeroBitCount))
                bits &= bits - 1
            }
        }
        return ids
    }

    /// The four words as SQLite integers (same bit patterns).
    var columns: [Int64] { (0..<4).map { Int64(bitPattern: words[$0]) } }

    /// Reads `b0`…`b3` from four integer columns.
    init(columns: (Int64, Int64, Int64, Int64)) {
        words = SIMD4(UInt64(bitPattern: columns.0), UInt64(bitPattern: columns.1), UInt64(bitPattern: columns.2),
            UInt64(bitPattern: columns.3))
    }
}
