// The PDF417 codeword patterns of ISO/IEC 15438, from the rule that orders them.
//
// A codeword is eight elements (bar, space, bar, …) of 1 to 6 modules, 17 in all, in one of the
// clusters 0, 3 and 6: (b1 − b2 + b3 − b4 + 9) mod 9 over its bars. Within a cluster the values
// 0…928 go to the patterns in ascending order of their edge-to-edge widths e2…e6 (each element with
// the next, from the second element), no two codewords alike in them; not every pattern of a
// cluster is a codeword, and `PDF417Patterns.chosen` says which are.

extension PDF417Patterns {
    /// Per cluster (0, 3, 6): the codewords' patterns, each's eight element widths packed four bits
    /// each, first element highest, in ascending order.
    static let patterns: [[UInt32]] = byValue.map { $0.sorted() }

    /// Per cluster: the codeword value of each pattern of `patterns`.
    static let values: [[UInt16]] = byValue.map { patterns in
        patterns.indices.sorted { patterns[$0] < patterns[$1] }.map(UInt16.init)
    }

    /// Per cluster: the patterns of the values 0…928.
    static let byValue: [[UInt32]] = {
        var clusters: [[UInt32]] = [], firstWord = 0
        for k in [0, 3, 6] {
            let all = candidates(cluster: k)
            clusters.append(all.indices.filter { chosen[firstWord + $0 / 64] >> UInt64($0 % 64) & 1 == 1 }.map { all[$0] })
            firstWord += (all.count + 63) / 64
        }
        return clusters
    }()

    /// Every pattern of cluster `k`: its second to seventh elements run over 1…6 each, the first
    /// follows from the cluster, the last from the 17 modules. Ordered by the edge-to-edge widths
    /// e2…e6, patterns alike in them by pattern.
    static func candidates(cluster k: Int) -> [UInt32] {
        var found: [(key: UInt32, pattern: UInt32)] = []
        var w = [Int](repeating: 0, count: 8)
        for middle in 0..<46_656 {
            var rest = middle
            for i in (1...6).reversed() {
                w[i] = rest % 6 + 1
                rest /= 6
            }
            w[0] = ((k + w[2] - w[4] + w[6]) % 9 + 9) % 9
            w[7] = 17 - w[0...6].reduce(0, +)
            guard (1...6).contains(w[0]), (1...6).contains(w[7]) else { continue }
            let pattern = w.reduce(0) { $0 << 4 | UInt32($1) }
            let key = (1...5).reduce(0) { $0 << 4 | UInt32(w[$1] + w[$1 + 1]) }
            found.append((key, pattern))
        }
        return found.sorted { ($0.key, $0.pattern) < ($1.key, $1.pattern) }.map(\.pattern)
    }
}
