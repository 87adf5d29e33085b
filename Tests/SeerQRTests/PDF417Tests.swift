import Testing

@testable import SeerQR

/// PDF417's Reed–Solomon code over GF(929), its codeword table and its data compaction modes.
@Suite("PDF417")
struct PDF417Tests {
    /// A deterministic generator of test codewords.
    struct Numbers {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    static func symbol(data: Int, level: Int, seed: UInt64) -> (codewords: [Int], k: Int) {
        var r = Numbers(state: seed)
        let k = 1 << (level + 1)
        let d = (0..<data).map { _ in r.next(929) }
        return (d + PDF417ReedSolomon.checkCodewords(d, k: k), k)
    }

    @Test("a symbol's codewords have zero syndromes")
    func encodes() {
        for level in 0...8 {
            let (c, k) = Self.symbol(data: 20, level: level, seed: UInt64(level))
            #expect(PDF417ReedSolomon.syndromes(c, k: k).allSatisfy { $0 == 0 })
        }
    }

    @Test("errors and erasures within e + 2t ≤ k − 2 are corrected", arguments: [1, 2, 3, 5])
    func corrects(level: Int) throws {
        var r = Numbers(state: 99)
        for trial in 0..<20 {
            let (c, k) = Self.symbol(data: 30, level: level, seed: UInt64(1000 * level + trial))
            let budget = k - 2
            let erasures = r.next(budget + 1)
            let errors = (budget - erasures) / 2
            var positions = Set<Int>()
            while positions.count < erasures + errors { positions.insert(r.next(c.count)) }
            let list = Array(positions)
            var damaged = c
            for i in list { damaged[i] = (damaged[i] + 1 + r.next(928)) % 929 }
            try PDF417ReedSolomon.correct(&damaged, k: k, erasures: Array(list.prefix(erasures)))
            #expect(damaged == c, "level \(level), \(erasures) erasures, \(errors) errors")
        }
    }

    @Test("more errors than the capacity are refused, never miscorrected")
    func refuses() {
        var r = Numbers(state: 7)
        var refused = 0
        for trial in 0..<50 {
            let (c, k) = Self.symbol(data: 25, level: 2, seed: UInt64(trial))
            var damaged = c
            var positions = Set<Int>()
            while positions.count < k / 2 + 1 { positions.insert(r.next(c.count)) }
            for i in positions { damaged[i] = (damaged[i] + 1 + r.next(928)) % 929 }
            do {
                try PDF417ReedSolomon.correct(&damaged, k: k)
                // A correction is only ever to a valid symbol, and here never back to the original.
                #expect(PDF417ReedSolomon.syndromes(damaged, k: k).allSatisfy { $0 == 0 })
                #expect(damaged != c)
            } catch {
                refused += 1
            }
        }
        #expect(refused >= 45)
    }

    @Test("the codeword table: 929 patterns per cluster, 17 modules, cluster from the bars")
    func table() {
        for c in 0..<3 {
            let patterns = PDF417Patterns.patterns[c]
            #expect(Set(patterns).count == 929)
            #expect(Set(PDF417Patterns.values[c]) == Set((0..<929).map(UInt16.init)))
            for p in patterns {
                let w = (0..<8).map { Int(p >> UInt32(28 - 4 * $0) & 15) }
                #expect(w.reduce(0, +) == 17)
                #expect((w[0] - w[2] + w[4] - w[6] + 9) % 9 == 3 * c)
                #expect(PDF417Locator.lookup(p)?.cluster == c)
            }
        }
    }

    @Test("the codewords the rule and the chosen bits give are the ones measured from pdf417gen's symbols")
    func tableValues() {
        let byValue = PDF417Patterns.byValue
        #expect(byValue.map(\.count) == [929, 929, 929])
        #expect([0, 3, 6].map { PDF417Patterns.candidates(cluster: $0).count } == [1484, 1002, 1002])
        #expect(byValue.map { $0[0] } == [0x3111_1136, 0x5111_1125, 0x2111_1155])
        #expect(byValue.map { $0[928] } == [0x2151_4112, 0x1262_1221, 0x3361_1111])
        // FNV-1a (64 bits) over every cluster's patterns by value, each in four bytes, lowest first:
        // the hash of the table as it stood written out in full, 929 patterns and values a cluster.
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for pattern in byValue.joined() {
            for shift in stride(from: 0, to: 32, by: 8) {
                hash = (hash ^ UInt64(pattern >> UInt32(shift) & 0xFF)) &* 0x100_0000_01B3
            }
        }
        #expect(hash == 0x3A85_8719_78E1_3CF0)
        // Both ways of indexing agree.
        for c in 0..<3 {
            for (i, p) in PDF417Patterns.patterns[c].enumerated() {
                #expect(byValue[c][Int(PDF417Patterns.values[c][i])] == p)
            }
        }
    }

    @Test("text, byte and numeric compaction")
    func compaction() throws {
        // "PDF417" in text compaction: P D F (alpha), ML, 4 1 7.
        // Alpha: P=15 D=3 F=5; ML=28; mixed 4, 1, 7; pad with 29 (PS).
        let text = [15 * 30 + 3, 5 * 30 + 28, 4 * 30 + 1, 7 * 30 + 29]
        #expect(PDF417HighLevel.decode([5] + text)?.bytes == Array("PDF417".utf8))
        // Bytes 1…7 in 901: six bytes as five base-900 codewords, the seventh alone.
        var v: UInt64 = 0
        for b in 1...6 { v = v << 8 | UInt64(b) }
        var group: [Int] = []
        for _ in 0..<5 { group.insert(Int(v % 900), at: 0); v /= 900 }
        #expect(PDF417HighLevel.decode([0, 901] + group + [7])?.bytes == [1, 2, 3, 4, 5, 6, 7])
        // Numeric: "000123" is 1000123 in base 900 after the leading 1.
        var n = 1_000_123
        var digits: [Int] = []
        while n > 0 { digits.insert(n % 900, at: 0); n /= 900 }
        #expect(PDF417HighLevel.decode([0, 902] + digits)?.bytes == Array("000123".utf8))
    }
}
