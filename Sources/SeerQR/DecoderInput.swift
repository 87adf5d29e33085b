/// What one of the matrix symbologies' decoders is given, after the locator and sampler are done:
/// codewords, a bit stream or a module grid, with the parameters the symbol's header gave. The one
/// entry point to those decoders that works without an image, as bytes: the libFuzzer target
/// `fuzz-symbols` feeds them arbitrary bytes, and the readers trace what they hand each decoder
/// (`decoder input <hex>`, at `.trace` level) so that its seeds come from real symbols.
///
/// Every byte string is some input (``init(bytes:)``): the first byte picks the decoder, the next
/// ones its parameters within the ranges the readers pass, the rest is the data. ``bytes`` writes an
/// input back in that form.
@_spi(Fuzzing) public enum DecoderInput: Sendable, Equatable {
    /// DataMatrix data codewords (error correction done) to ``DataMatrixStream``, then its text.
    case dataMatrix(codewords: [UInt8])
    /// DataMatrix codewords, data then error words interleaved over `blocks` blocks, to the
    /// Reed–Solomon check, then the data to ``DataMatrixStream``.
    case dataMatrixSymbol(codewords: [UInt8], blocks: Int, errorWords: Int)
    /// A PDF417 symbol's codewords (0…928, highest power first), `checkCount` of them check
    /// codewords, some known unreadable: corrected over GF(929), then decoded.
    case pdf417(codewords: [Int], checkCount: Int, erasures: [Int])
    /// PDF417 data codewords (0…928, the length descriptor first) to the high-level decoder.
    case pdf417Data(codewords: [Int])
    /// An Aztec mode message's bits (28 compact, 40 full-range), corrected and read.
    case aztecMode(bits: [Bool], compact: Bool)
    /// The bits of an Aztec symbol's data layers, corrected, unstuffed and decoded.
    case aztecData(bits: [Bool], compact: Bool, layers: Int, dataCodewords: Int)
    /// A corrected Aztec data bit stream to the character modes.
    case aztecText(bits: [Bool])
    /// A Micro QR module grid (`size` × `size`, dark = true, the finder at the top left): format,
    /// correction and data stream.
    case microQR(modules: [Bool], size: Int)
    /// Micro QR data codewords of symbol type `type` (0…7: M1, M2-L … M4-Q) to the data stream.
    case microQRData(codewords: [UInt8], type: Int)
    /// Bytes to the GS1 element string check, and as text to the bracketed form's parser.
    case gs1(bytes: [UInt8])
    /// Words of a GF(2^`bits`) Reed–Solomon code (`bits` 4, 6, 8, 10 or 12: Aztec's fields), the
    /// last `checkCount` of them check words, to the corrector.
    case reedSolomon(words: [Int], checkCount: Int, bits: Int)
    /// A MaxiCode module grid (33 rows of 30, dark = true, row by row): both messages corrected,
    /// then the data decoded.
    case maxiCode(modules: [Bool])

    static let kinds = 12
    static let fieldBits = [4, 6, 8, 10, 12]

    /// The input these bytes stand for. Parameters out of their range are taken modulo it; data too
    /// short for its grid or block is padded with zeros, data past it dropped.
    public init(bytes: [UInt8]) {
        let kind = Int(bytes.first ?? 0) % Self.kinds
        func byte(_ i: Int) -> Int { i < bytes.count ? Int(bytes[i]) : 0 }
        func rest(_ from: Int) -> [UInt8] { from < bytes.count ? Array(bytes[from...]) : [] }
        func bits(_ data: [UInt8]) -> [Bool] { data.flatMap { b in (0..<8).map { b >> (7 - $0) & 1 == 1 } } }
        func fitted(_ b: [Bool], _ count: Int) -> [Bool] {
            b.count >= count ? Array(b.prefix(count)) : b + [Bool](repeating: false, count: count - b.count)
        }
        func words(_ data: [UInt8]) -> [Int] {
            stride(from: 0, to: data.count - 1, by: 2).map { Int(data[$0]) << 8 | Int(data[$0 + 1]) }
        }
        switch kind {
        case 0:
            self = .dataMatrix(codewords: rest(1))
        case 1:
            self = .dataMatrixSymbol(codewords: rest(3), blocks: 1 + byte(1) % 10, errorWords: 1 + byte(2) % 68)
        case 2:
            // A word of 0xF000 or more is an erasure.
            let raw = words(rest(2))
            self = .pdf417(
                codewords: raw.map { $0 >= 0xF000 ? 0 : $0 % 929 }, checkCount: 2 << (byte(1) % 9),
                erasures: raw.indices.filter { raw[$0] >= 0xF000 })
        case 3:
            self = .pdf417Data(codewords: words(rest(1)).map { $0 % 929 })
        case 4:
            let compact = byte(1) & 1 == 0
            self = .aztecMode(bits: fitted(bits(rest(2)), compact ? 28 : 40), compact: compact)
        case 5:
            let compact = byte(1) & 0x80 == 0
            let layers = 1 + byte(1) % (compact ? 4 : 32)
            let dataCodewords = 1 + (byte(2) << 8 | byte(3)) % 2048
            let mode = AztecMode(compact: compact, layers: layers, dataCodewords: dataCodewords)
            self = .aztecData(bits: fitted(bits(rest(4)), AztecLayout.totalBits(mode)), compact: compact, layers: layers, dataCodewords: dataCodewords)
        case 6:
            self = .aztecText(bits: bits(rest(1)))
        case 7:
            let size = 11 + 2 * (byte(1) % 4)
            self = .microQR(modules: fitted(bits(rest(2)), size * size), size: size)
        case 8:
            let type = byte(1) % MicroQR.types.count
            let data = rest(2), count = MicroQR.types[type].dataCodewords
            self = .microQRData(codewords: Array(data.prefix(count)) + [UInt8](repeating: 0, count: max(0, count - data.count)), type: type)
        case 9:
            self = .gs1(bytes: rest(1))
        case 10:
            let fieldBits = Self.fieldBits[byte(1) % Self.fieldBits.count]
            let mask = (1 << fieldBits) - 1
            self = .reedSolomon(words: words(rest(4)).map { $0 & mask }, checkCount: byte(2) << 8 | byte(3), bits: fieldBits)
        default:
            self = .maxiCode(modules: fitted(bits(rest(1)), MaxiCode.rows * MaxiCode.columns))
        }
    }

    /// The input as bytes (``init(bytes:)`` reads them back as this input).
    public var bytes: [UInt8] {
        func packed(_ bits: [Bool]) -> [UInt8] {
            stride(from: 0, to: bits.count, by: 8).map { i in
                (0..<8).reduce(UInt8(0)) { $0 << 1 | (i + $1 < bits.count && bits[i + $1] ? 1 : 0) }
            }
        }
        func wordBytes(_ values: [Int]) -> [UInt8] { values.flatMap { [UInt8($0 >> 8 & 0xFF), UInt8($0 & 0xFF)] } }
        switch self {
        case .dataMatrix(let codewords):
            return [0] + codewords
        case .dataMatrixSymbol(let codewords, let blocks, let errorWords):
            return [1, UInt8((blocks - 1) % 10), UInt8((errorWords - 1) % 68)] + codewords
        case .pdf417(let codewords, let checkCount, let erasures):
            let level = max(0, checkCount.trailingZeroBitCount - 1) % 9
            let erased = Set(erasures)
            return [2, UInt8(level)] + wordBytes(codewords.indices.map { erased.contains($0) ? 0xFFFF : codewords[$0] % 929 })
        case .pdf417Data(let codewords):
            return [3] + wordBytes(codewords.map { $0 % 929 })
        case .aztecMode(let bits, let compact):
            return [4, compact ? 0 : 1] + packed(bits)
        case .aztecData(let bits, let compact, let layers, let dataCodewords):
            let l = UInt8((layers - 1) % (compact ? 4 : 32)) | (compact ? 0 : 0x80)
            let d = (dataCodewords - 1) % 2048
            return [5, l, UInt8(d >> 8), UInt8(d & 0xFF)] + packed(bits)
        case .aztecText(let bits):
            return [6] + packed(bits)
        case .microQR(let modules, let size):
            return [7, UInt8(((size - 11) / 2) & 3)] + packed(modules)
        case .microQRData(let codewords, let type):
            return [8, UInt8(type % MicroQR.types.count)] + codewords
        case .gs1(let bytes):
            return [9] + bytes
        case .reedSolomon(let words, let checkCount, let bits):
            return [10, UInt8(Self.fieldBits.firstIndex(of: bits) ?? 0), UInt8(checkCount >> 8 & 0xFF), UInt8(checkCount & 0xFF)] + wordBytes(words)
        case .maxiCode(let modules):
            return [11] + packed(modules)
        }
    }

    /// The input as lowercase hexadecimal, as the readers trace it.
    public var hex: String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }

    /// The bytes of `hex` (two digits a byte), or nil when it is not hexadecimal.
    public static func bytes(hex: Substring) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func value(_ d: UInt8) -> UInt8? {
            switch d {
            case 0x30...0x39: d - 0x30
            case 0x61...0x66: d - 0x61 + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let hi = value(digits[i]), let lo = value(digits[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
        }
        return out
    }

    /// Runs the decoder: what it made of the input (the decoded bytes, the corrected words, the mode
    /// message's fields), or nil when it refused it.
    public func decode() -> [UInt8]? {
        switch self {
        case .dataMatrix(let codewords):
            guard case .success(let stream) = DataMatrixStream.decode(codewords) else { return nil }
            return stream.text().map { Array($0.text.utf8) } ?? stream.bytes
        case .dataMatrixSymbol(let codewords, let blocks, let errorWords):
            let dataWords = codewords.count - errorWords * blocks
            guard dataWords >= blocks else { return nil }
            let sizes = (0..<blocks).map { dataWords / blocks + ($0 < dataWords % blocks ? 1 : 0) }
            guard DataMatrixCheck.isValid(codewords, dataWords: dataWords, errorWordsPerBlock: errorWords, dataSizes: sizes),
                case .success(let stream) = DataMatrixStream.decode(Array(codewords[0..<dataWords]))
            else { return nil }
            return stream.bytes
        case .pdf417(let codewords, let checkCount, let erasures):
            return PDF417HighLevel.decodeSymbol(codewords, checkCount: checkCount, erasures: erasures)?.bytes
        case .pdf417Data(let codewords):
            return PDF417HighLevel.decode(codewords)?.bytes
        case .aztecMode(let bits, let compact):
            guard let mode = AztecLayout.mode(bits, compact: compact) else { return nil }
            return [mode.compact ? 1 : 0, UInt8(mode.layers), UInt8(mode.dataCodewords >> 8), UInt8(mode.dataCodewords & 0xFF), mode.rune ? 1 : 0]
        case .aztecData(let bits, let compact, let layers, let dataCodewords):
            let mode = AztecMode(compact: compact, layers: layers, dataCodewords: dataCodewords)
            guard let data = AztecLayout.correctedData(bits, mode) else { return nil }
            return AztecText.decode(data)?.bytes
        case .aztecText(let bits):
            return AztecText.decode(bits)?.bytes
        case .microQR(let modules, let size):
            return MicroQR.decode(modules, size: size)?.0.stream.bytes
        case .microQRData(let codewords, let type):
            let t = MicroQR.types[type]
            return QRBitstream(micro: codewords, version: t.version, dataBits: t.dataBits)?.bytes
        case .gs1(let bytes):
            let wellFormed = GS1Syntax.isWellFormed(bytes)
            let bracketed = GS1Syntax.elementString(fromBracketed: String(decoding: bytes, as: UTF8.self))
            return wellFormed ? bytes : bracketed
        case .reedSolomon(let words, let checkCount, let bits):
            var corrected = words
            let field = bits == 4 ? GaloisField.gf16 : AztecLayout.field(bits: bits)
            guard FieldReedSolomon.correct(&corrected, checkCount: checkCount, field: field) != nil else { return nil }
            return corrected.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        case .maxiCode(let modules):
            return MaxiCode.decode(modules)?.bytes
        }
    }
}
