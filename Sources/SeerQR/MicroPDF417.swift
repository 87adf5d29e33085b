/// MicroPDF417 (ISO/IEC 24728): PDF417's codewords, clusters, Reed–Solomon code over GF(929) and
/// data compaction, in 1–4 data columns between Row Address Patterns (RAPs) instead of start/stop
/// patterns and row indicators. Each row reads: left RAP, data columns (a centre RAP after the first
/// of three columns or the second of four), right RAP, and a one-module bar. A row's RAPs and its
/// cluster follow from the symbol's variant (one of 34 sizes) and the row's number: each RAP goes one
/// step on per row through its 52 patterns and the cluster one step through 0, 3, 6.
enum MicroPDF417 {
    /// One of the standard's sizes: data columns, rows, error correction codewords, the left, centre
    /// and right RAP numbers (1…52) of the first row (centre 0 without one) and its cluster (0, 1, 2
    /// for 0, 3, 6).
    struct Variant: Sendable, Equatable {
        var columns: Int, rows: Int, checkCount: Int
        var left: Int, centre: Int, right: Int, cluster: Int

        /// The RAP number (1…52) `row` rows after `first`.
        @inline(__always) static func rap(_ first: Int, _ row: Int) -> Int { (first - 1 + row) % 52 + 1 }

        /// The row whose RAP (starting at `first`) is `number`, when below `rows`.
        func row(of number: Int, first: Int) -> Int? {
            let r = ((number - first) % 52 + 52) % 52
            return r < rows ? r : nil
        }

        /// The cluster (0, 1, 2) of row `row`.
        func cluster(of row: Int) -> Int { (cluster + row) % 3 }
    }

    static let variants: [Variant] = {
        let columns = [1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2] + [Int](repeating: 3, count: 10) + [Int](repeating: 4, count: 11)
        let rows = [11, 14, 17, 20, 24, 28, 8, 11, 14, 17, 20, 23, 26, 6, 8, 10, 12, 15, 20, 26, 32, 38, 44, 4, 6, 8, 10, 12, 15, 20, 26, 32, 38, 44]
        let checks = [7, 7, 7, 8, 8, 8, 8, 9, 9, 10, 11, 13, 15, 12, 14, 16, 18, 21, 26, 32, 38, 44, 50, 8, 12, 14, 16, 18, 21, 26, 32, 38, 44, 50]
        let left = [1, 8, 36, 19, 9, 25, 1, 1, 8, 36, 19, 9, 27, 1, 7, 15, 25, 37, 1, 1, 21, 15, 1, 47, 1, 7, 15, 25, 37, 1, 1, 21, 15, 1]
        let centre = [Int](repeating: 0, count: 13) + [1, 7, 15, 25, 37, 17, 9, 29, 31, 25, 19, 1, 7, 15, 25, 37, 17, 9, 29, 31, 25]
        let right = [9, 8, 36, 19, 17, 33, 1, 9, 8, 36, 19, 17, 35, 1, 7, 15, 25, 37, 33, 17, 37, 47, 49, 43, 1, 7, 15, 25, 37, 33, 17, 37, 47, 49]
        let cluster = [0, 3, 6, 0, 6, 0, 0, 0, 3, 6, 0, 6, 6, 0, 0, 6, 0, 0, 0, 0, 6, 6, 0, 3, 0, 0, 6, 0, 0, 0, 0, 6, 6, 0]
        return (0..<34).map {
            Variant(columns: columns[$0], rows: rows[$0], checkCount: checks[$0], left: left[$0], centre: centre[$0], right: right[$0], cluster: cluster[$0] / 3)
        }
    }()

    /// The left and right RAPs 1…52 as bar, space, bar, space, bar, space widths (10 modules).
    static let sideRAPs: [String] = [
        "221311", "311311", "312211", "222211", "213211", "214111", "223111", "313111", "322111", "412111",
        "421111", "331111", "241111", "232111", "231211", "321211", "411211", "411121", "411112", "321112",
        "312112", "311212", "311221", "311131", "311122", "311113", "221113", "221122", "221131", "221221",
        "222121", "312121", "321121", "231121", "231112", "222112", "213112", "212212", "212221", "212131",
        "212122", "212113", "211213", "211123", "211132", "211141", "211231", "211222", "211312", "211321",
        "211411", "212311",
    ]
    /// The centre RAPs 1…52, likewise (they start with a one-module bar; the side ones never do).
    static let centreRAPs: [String] = [
        "112231", "121231", "122131", "131131", "131221", "132121", "141121", "141211", "142111", "133111",
        "132211", "131311", "122311", "123211", "124111", "115111", "114211", "114121", "123121", "123112",
        "122212", "122221", "121321", "121411", "112411", "113311", "113221", "113212", "113122", "122122",
        "131122", "131113", "122113", "113113", "112213", "112222", "112312", "112321", "111421", "111331",
        "111322", "111232", "111223", "111133", "111124", "111214", "112114", "121114", "121123", "121132",
        "112132", "112141",
    ]

    /// Packed widths (four bits each, first highest) → (is a centre RAP, number 1…52).
    static let raps: [UInt32: (centre: Bool, number: Int)] = {
        var table: [UInt32: (centre: Bool, number: Int)] = [:]
        for (centre, list) in [(false, sideRAPs), (true, centreRAPs)] {
            for (i, s) in list.enumerated() {
                let p = s.utf8.reduce(UInt32(0)) { $0 << 4 | UInt32($1 - 48) }
                table[p] = (centre, i + 1)
            }
        }
        return table
    }()

    /// Modules across a row of `columns` data columns, the final bar included.
    static func width(columns: Int) -> Int { 10 + 17 * columns + (columns >= 3 ? 10 : 0) + 11 }

    /// Where each data column's codeword starts along a row (modules from the left RAP's outer edge)
    /// and where the centre RAP starts (nil without one).
    static func layout(columns: Int) -> (codewords: [Double], centre: Double?) {
        switch columns {
        case 1: ([10], nil)
        case 2: ([10, 27], nil)
        case 3: ([10, 37, 54], 27)
        default: ([10, 27, 54, 71], 44)
        }
    }

    /// The RAP whose six runs are `edges` (seven boundaries, modules along the line); nil when the
    /// widths, scaled to ten modules, are none of the patterns.
    static func rap(_ edges: ArraySlice<Double>) -> (centre: Bool, number: Int)? {
        let e0 = edges.startIndex
        guard edges.count == 7 else { return nil }
        let total = edges[e0 + 6] - edges[e0]
        guard total > 7, total < 13 else { return nil }
        return PDF417Locator.roundedWidths(elements: 6, modules: 10, widest: 5, total: total) { edges[e0 + $0 + 1] - edges[e0 + $0] }.flatMap { raps[$0] }
    }

    /// Whether each side RAP's widths (each 1–4: digits 0–3 in base 4, first highest) are one:
    /// 4096 flags, for the locator's quick test.
    static let sideFlags: [Bool] = {
        var flags = [Bool](repeating: false, count: 4096)
        for s in sideRAPs {
            flags[s.utf8.reduce(0) { $0 * 4 + Int($1) - 49 }] = true
        }
        return flags
    }()

    /// How six runs matched a side RAP: by their widths, or only by the sums of neighbouring runs.
    enum SideRAPMatch { case widths, sums }

    /// Whether six run widths from `i` (pixels; `reversed`: read from the last) are a side RAP: each
    /// rounded to tenths of their sum (integer arithmetic and a table: the locator asks this of many
    /// runs), else the widths the sums of neighbouring runs give, which a blurred RAP whose bars the
    /// threshold widened keeps.
    @inline(__always)
    static func sideRAP(_ w: UnsafeBufferPointer<Int32>, from i: Int, reversed: Bool) -> SideRAPMatch? {
        var total: Int32 = 0
        for k in 0..<6 { total += w[i + k] }
        guard total > 0 else { return nil }
        var index = 0, sum: Int32 = 0
        for k in 0..<6 {
            // round(10 w / total)
            let r = (20 * w[reversed ? i + 5 - k : i + k] + total) / (2 * total)
            guard r >= 1, r <= 4 else { index = -1; break }
            sum += r
            index = index * 4 + Int(r - 1)
        }
        if index >= 0, sum == 10, sideFlags[index] { return .widths }
        let p = PDF417Locator.edgeWidths(elements: 6, modules: 10, widest: 4, run: { Double(w[reversed ? i + 5 - $0 : i + $0]) }) { p in
            var index = 0
            for k in 0..<6 { index = index * 4 + Int(p >> UInt32(4 * (5 - k)) & 15) - 1 }
            return sideFlags[index]
        }
        return p == nil ? nil : .sums
    }

    /// The data codewords of a corrected symbol decoded: PDF417's compaction modes, starting in
    /// Text compaction (no symbol length descriptor). Nil when a codeword breaks the rules,
    /// including the Code 128 emulation and linkage codewords (903–912, 914–918) Seer does not read.
    static func decode(data: [Int]) -> PDF417Message? {
        guard !data.isEmpty, data.allSatisfy({ $0 < 929 }) else { return nil }
        // The high-level decoder skips a length descriptor: one is put in front.
        guard let message = PDF417HighLevel.decode([data.count] + data), !message.bytes.isEmpty else { return nil }
        return message
    }

    /// A symbol's codewords (row by row, the variant's error correction codewords last) corrected and
    /// decoded; nil when the correction fails or the data does not decode. `log` hears why.
    static func decodeSymbol(_ codewords: [Int], variant: Variant, erasures: [Int], log: ((String) -> Void)? = nil) -> PDF417Message? {
        guard codewords.count == variant.rows * variant.columns else { return nil }
        var codewords = codewords
        do throws(PDF417ReedSolomon.Failure) {
            try PDF417ReedSolomon.correct(&codewords, k: variant.checkCount, erasures: erasures)
        } catch {
            log?("micropdf417: \(error)")
            return nil
        }
        let data = Array(codewords[..<(codewords.count - variant.checkCount)])
        guard let message = decode(data: data) else {
            log?("micropdf417: data codewords \(data) do not decode")
            return nil
        }
        return message
    }
}
