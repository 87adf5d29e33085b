/// The data codewords of a PDF417 symbol turned into bytes (ISO/IEC 15438 clause 5.4): Text
/// compaction (sub-modes Alpha, Lower, Mixed, Punctuation), Byte compaction (901, 924, and the 913
/// shift), Numeric compaction (902), ECIs (925–927) and the Macro PDF417 control block (928).
struct PDF417Message: Sendable, Equatable {
    /// The bytes as encoded; under ECIs, each segment's text transcoded to UTF-8.
    var bytes: [UInt8]
    /// The text, when every segment under an ECI decodes in its character set (nil without ECI).
    var text: String?
    /// Whether the data starts with FNC1 (GS1).
    var isGS1 = false
    /// For a Macro PDF417 symbol: its segment index and the file ID.
    var segmentIndex: Int?
    var fileID: [Int]?
    var segmentCount: Int?
    var isLastSegment = false
}

enum PDF417HighLevel {
    static let textLatch = 900, byteLatch = 901, numericLatch = 902, byteShift = 913
    static let byteLatch6 = 924, eciUser = 925, eciGeneral = 926, eciCharset = 927
    static let macroStart = 928, macroOptional = 923, macroTerminator = 922, readerInit = 921, fnc1GS1 = 920

    static let mixed: [UInt8] = Array("0123456789&\r\t,:#-.$/+%*=^".utf8)
    static let punct: [UInt8] = Array(";<>@[\\]_`~!\r\t,:\n-.$/\"|*()?{}'".utf8)

    /// A symbol's codewords (`checkCount` of them check codewords, `erasures` the indexes known
    /// unreadable) corrected, their length descriptor checked and the data decoded; nil when the
    /// correction fails or the data breaks the rules. `log` hears why.
    static func decodeSymbol(_ codewords: [Int], checkCount k: Int, erasures: [Int], log: ((String) -> Void)? = nil) -> PDF417Message? {
        var codewords = codewords
        do throws(PDF417ReedSolomon.Failure) {
            try PDF417ReedSolomon.correct(&codewords, k: k, erasures: erasures)
        } catch {
            log?("pdf417: \(error)")
            return nil
        }
        let dataCount = codewords.count - k
        guard dataCount >= 1, codewords[0] == dataCount, codewords[..<dataCount].allSatisfy({ $0 < 929 }) else {
            log?("pdf417: length descriptor \(codewords.first ?? 0), \(dataCount) data codewords")
            return nil
        }
        if let log { log("decoder input \(DecoderInput.pdf417Data(codewords: Array(codewords[..<dataCount])).hex)") }
        guard let message = decode(Array(codewords[..<dataCount])) else {
            log?("pdf417: data codewords \(codewords[..<dataCount]) do not decode")
            return nil
        }
        return message
    }

    /// Decodes the data codewords (the first is the symbol length descriptor, already checked);
    /// nil when a codeword breaks the rules.
    static func decode(_ codewords: [Int]) -> PDF417Message? {
        var segments: [(eci: Int?, bytes: [UInt8])] = [(nil, [])]
        var message = PDF417Message(bytes: [])
        var sawECI = false
        func emit(_ b: UInt8) { segments[segments.count - 1].bytes.append(b) }
        var i = 1
        var mode = textLatch
        let n = codewords.count
        // Text compaction's sub-mode persists only while in text compaction.
        var sub = 0  // 0 alpha, 1 lower, 2 mixed, 3 punct
        while i < n {
            let cw = codewords[i]
            if cw >= 900 {
                i += 1
                switch cw {
                case textLatch: mode = textLatch; sub = 0
                case byteLatch, byteLatch6: mode = cw
                case numericLatch: mode = numericLatch
                case byteShift:
                    guard i < n, codewords[i] < 900 else { return nil }
                    emit(UInt8(truncatingIfNeeded: codewords[i]))
                    i += 1
                case eciCharset:
                    guard i < n, codewords[i] < 900 else { return nil }
                    segments.append((codewords[i], [])); sawECI = true
                    i += 1
                case eciGeneral:
                    // General-purpose and user-defined ECIs name no character set: the one in force stays.
                    guard i + 1 < n else { return nil }
                    i += 2
                case eciUser:
                    guard i < n else { return nil }
                    i += 1
                case fnc1GS1:
                    if i == 2 || (segments.count == 1 && segments[0].bytes.isEmpty) { message.isGS1 = true } else { emit(0x1D) }
                case readerInit:
                    guard i == 2 else { return nil }
                case macroStart:
                    guard parseMacro(codewords, from: i, into: &message) else { return nil }
                    i = n
                case macroTerminator, macroOptional:
                    return nil
                default:
                    return nil
                }
                continue
            }
            // A run of data codewords up to the next control codeword.
            var j = i
            while j < n && codewords[j] < 900 { j += 1 }
            let run = Array(codewords[i..<j])
            switch mode {
            case textLatch:
                guard let out = text(run, sub: &sub, next: j < n ? codewords[j] : nil, codewords: codewords, at: j) else { return nil }
                for b in out.bytes { emit(b) }
                j = out.end
            case byteLatch, byteLatch6:
                var k = 0
                while k < run.count {
                    let rest = run.count - k
                    // In 901 the last group of fewer than six bytes is one codeword a byte; an ECI
                    // inside byte compaction does not end it.
                    let continues = j < n && (eciUser...eciCharset).contains(codewords[j])
                    if rest >= 5 && (mode == byteLatch6 || rest > 5 || continues) {
                        var v: UInt64 = 0
                        for c in run[k..<(k + 5)] { v = v * 900 + UInt64(c) }
                        guard v < (1 << 48) else { return nil }
                        for s in stride(from: 40, through: 0, by: -8) { emit(UInt8((v >> UInt64(s)) & 0xFF)) }
                        k += 5
                    } else {
                        guard run[k] < 256 else { return nil }
                        emit(UInt8(run[k]))
                        k += 1
                    }
                }
            case numericLatch:
                var k = 0
                while k < run.count {
                    let group = Array(run[k..<min(run.count, k + 15)])
                    guard let digits = numeric(group) else { return nil }
                    for d in digits { emit(d) }
                    k += group.count
                }
            default:
                return nil
            }
            i = j
        }
        if !sawECI {
            message.bytes = segments.flatMap(\.bytes)
            return message
        }
        var text = ""
        for s in segments where !s.bytes.isEmpty {
            if let eci = s.eci {
                guard let (t, _) = QRBitstream.decode(s.bytes, eci: eci) else { return nil }
                text += t
            } else {
                text += String(decoding: s.bytes.map { UInt16($0) }, as: UTF16.self)
            }
        }
        message.text = text
        message.bytes = Array(text.utf8)
        return message
    }

    /// Text compaction of `run`; a 913 byte shift inside it keeps the sub-mode, so the text may go
    /// on past it: `end` is where decoding stopped.
    static func text(_ run: [Int], sub: inout Int, next: Int?, codewords: [Int], at: Int) -> (bytes: [UInt8], end: Int)? {
        var values: [Int] = []
        for c in run { values.append(c / 30); values.append(c % 30) }
        var out: [UInt8] = []
        var shift: Int? = nil  // one-character shift to a sub-mode
        for v in values {
            let m = shift ?? sub
            shift = nil
            switch m {
            case 0, 1:
                if v < 26 { out.append(UInt8((m == 0 ? 65 : 97) + v)); continue }
                switch v {
                case 26: out.append(32)
                case 27: if m == 0 { sub = 1 } else { shift = 0 }
                case 28: sub = 2
                default: shift = 3
                }
            case 2:
                if v < 25 { out.append(mixed[v]); continue }
                switch v {
                case 25: sub = 3
                case 26: out.append(32)
                case 27: sub = 1
                case 28: sub = 0
                default: shift = 3
                }
            default:
                if v < 29 { out.append(punct[v]); continue }
                // 29: back to Alpha (latch from Punctuation; a shift's end returns anyway).
                if m == sub { sub = 0 }
            }
        }
        return (out, at)
    }

    /// A numeric compaction group: base 900 to base 10, dropping the leading 1.
    static func numeric(_ group: [Int]) -> [UInt8]? {
        // Big number in base 10^9 limbs, little-endian.
        var limbs: [UInt64] = [0]
        for c in group {
            var carry = UInt64(c)
            for li in 0..<limbs.count {
                let v = limbs[li] * 900 + carry
                limbs[li] = v % 1_000_000_000
                carry = v / 1_000_000_000
            }
            while carry > 0 { limbs.append(carry % 1_000_000_000); carry /= 1_000_000_000 }
        }
        var s = String(limbs.last!)
        for l in limbs.dropLast().reversed() {
            let t = String(l)
            s += String(repeating: "0", count: 9 - t.count) + t
        }
        guard s.first == "1" else { return nil }
        return Array(s.utf8.dropFirst())
    }

    /// The Macro PDF417 control block from `i` (after the 928): the segment index (two codewords,
    /// five digits in numeric compaction), the file ID (codewords up to 923/922), optional fields.
    static func parseMacro(_ c: [Int], from i: Int, into m: inout PDF417Message) -> Bool {
        guard i + 2 <= c.count, c[i] < 900, c[i + 1] < 900, let digits = numeric([c[i], c[i + 1]]),
            let index = Int(String(decoding: digits, as: UTF8.self))
        else { return false }
        m.segmentIndex = index
        var j = i + 2
        var file: [Int] = []
        while j < c.count && c[j] < 900 { file.append(c[j]); j += 1 }
        m.fileID = file
        while j < c.count {
            if c[j] == macroTerminator { m.isLastSegment = true; j += 1; continue }
            guard c[j] == macroOptional, j + 1 < c.count else { return false }
            let tag = c[j + 1]
            j += 2
            var field: [Int] = []
            while j < c.count && c[j] < 900 { field.append(c[j]); j += 1 }
            if tag == 1, let d = numeric(field), let n = Int(String(decoding: d, as: UTF8.self)) { m.segmentCount = n }
        }
        return true
    }
}
