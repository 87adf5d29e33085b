/// The data codewords of a DataMatrix ECC 200 symbol (error correction done), decoded by the
/// encodation rules of ISO/IEC 16022 §5.2: ASCII, C40, Text, ANSI X12, EDIFACT and Base 256, with
/// FNC1, ECI, structured append, reader programming and the 05/06 macros.
///
/// Decoding is strict: a codeword that no rule allows where it stands (an undefined value, a macro
/// or structured-append header past the start, a Base 256 field running past the data, a C40 value
/// that names no character) fails the whole symbol rather than being skipped, so that what is
/// reported is exactly what was encoded.
struct DataMatrixStream: Equatable {
    /// A run of bytes under one ECI (`nil`: none named, ISO/IEC 8859-1 by the standard's default).
    struct Segment: Equatable {
        var eci: Int?
        var bytes: [UInt8]
    }

    var segments: [Segment] = []
    /// FNC1 in the first position (after a structured-append header, if any): GS1 data.
    var gs1 = false
    /// Reader programming (codeword 234 first): the data configures a reader rather than being a message.
    var readerProgramming = false
    /// The symbol's place in a structured-append sequence, with the sequence's file identification as
    /// its `parity` (two codewords, high one first).
    var structuredAppend: StructuredAppend?
    /// Whether any codeword beyond plain characters, digits, latches and padding was met (FNC1, ECI,
    /// structured append, reader programming, a macro).
    var special = false

    /// Every segment's bytes, in order. FNC1 past the first position stands as GS (0x1D); the 05/06
    /// macros as their ISO/IEC 15434 header and trailer.
    var bytes: [UInt8] { segments.flatMap(\.bytes) }

    enum Failure: Error, Equatable {
        /// An undefined codeword, or one not allowed where it stands (its index in the data).
        case codeword(Int)
        /// The data ends inside a field that needs more codewords.
        case truncated
    }

    static let gs: UInt8 = 0x1D

    /// Decodes `data`, the symbol's data codewords in order.
    static func decode(_ data: [UInt8]) -> Result<DataMatrixStream, Failure> {
        var decoder = Decoder(data: data)
        do {
            try decoder.run()
        } catch let failure as Failure {
            return .failure(failure)
        } catch {
            return .failure(.truncated)
        }
        decoder.closeSegment()
        return .success(decoder.stream)
    }

    private struct Decoder {
        let data: [UInt8]
        var position = 0
        var stream = DataMatrixStream()
        var current: [UInt8] = []
        var eci: Int?
        var macroTrailer = false

        init(data: [UInt8]) { self.data = data }

        mutating func closeSegment() {
            if macroTrailer {
                current += [0x1E, 0x04]
                macroTrailer = false
            }
            if !current.isEmpty || (stream.segments.isEmpty && eci != nil) {
                stream.segments.append(Segment(eci: eci, bytes: current))
            }
            current = []
        }

        mutating func next() throws -> Int {
            guard position < data.count else { throw Failure.truncated }
            defer { position += 1 }
            return Int(data[position])
        }

        /// Whether the codeword at `index` is the first of the message (a structured-append header
        /// before it does not count).
        func atStart(_ index: Int) -> Bool {
            index == 0 || (index == 4 && stream.structuredAppend != nil)
        }

        mutating func run() throws {
            var upperShift = false
            while position < data.count {
                let index = position
                let c = try next()
                if upperShift {
                    // Upper Shift applies to one ASCII character (codewords 1–128): anything else after
                    // it (0, a digit pair, a latch, another shift) is not allowed.
                    guard (1...128).contains(c) else { throw Failure.codeword(index) }
                    current.append(UInt8(c + 127))
                    upperShift = false
                    continue
                }
                switch c {
                case 1...128: current.append(UInt8(c - 1))
                case 129: return  // padding: the rest is pad codewords
                case 130...229:
                    let digits = c - 130
                    current += [UInt8(48 + digits / 10), UInt8(48 + digits % 10)]
                case 230: try decodeC40Text(text: false)
                case 231: try decodeBase256()
                case 232:
                    stream.special = true
                    if atStart(index) {
                        stream.gs1 = true
                    } else {
                        current.append(DataMatrixStream.gs)
                    }
                case 233:
                    guard index == 0 else { throw Failure.codeword(index) }
                    stream.special = true
                    let sequence = try next(), file1 = try next(), file2 = try next()
                    let position = sequence >> 4 + 1, total = 17 - (sequence & 0x0F)
                    guard position <= total, total >= 2, (1...254).contains(file1), (1...254).contains(file2) else {
                        throw Failure.codeword(index + 1)
                    }
                    stream.structuredAppend = StructuredAppend(index: position - 1, count: total, parity: file1 << 8 | file2)
                case 234:
                    guard atStart(index) else { throw Failure.codeword(index) }
                    stream.special = true
                    stream.readerProgramming = true
                case 235: upperShift = true
                case 236, 237:
                    guard index == 0 else { throw Failure.codeword(index) }
                    stream.special = true
                    current += [0x5B, 0x29, 0x3E, 0x1E, 0x30, c == 236 ? 0x35 : 0x36, 0x1D]  // "[)>" RS "05"/"06" GS
                    macroTrailer = true
                case 238: try decodeX12()
                case 239: try decodeC40Text(text: true)
                case 240: try decodeEDIFACT()
                case 241:
                    stream.special = true
                    let value = try eciValue()
                    closeSegmentKeepingTrailer()
                    eci = value
                default:
                    throw Failure.codeword(index)
                }
            }
            if upperShift { throw Failure.truncated }
        }

        /// Starts a new segment without closing a macro (its trailer ends the whole message).
        mutating func closeSegmentKeepingTrailer() {
            let trailer = macroTrailer
            macroTrailer = false
            closeSegment()
            macroTrailer = trailer
        }

        /// The ECI designator after codeword 241 (one to three codewords).
        mutating func eciValue() throws -> Int {
            let c1 = try next()
            switch c1 {
            case 1...127: return c1 - 1
            case 128...191:
                let c2 = try next()
                return (c1 - 128) * 254 + (c2 - 1) + 127
            case 192...253:
                let c2 = try next(), c3 = try next()
                return (c1 - 192) * 64516 + (c2 - 1) * 254 + (c3 - 1) + 16383
            default:
                throw Failure.codeword(position - 1)
            }
        }

        /// Three values of 0–39 from a pair of codewords, or nil at an unlatch (254) or when fewer
        /// than two codewords remain (the rest is ASCII).
        mutating func triple() throws -> [Int]? {
            guard position < data.count else { return nil }
            let c1 = Int(data[position])
            if c1 == 254 {
                position += 1
                return nil
            }
            guard position + 1 < data.count else { return nil }
            let c2 = Int(data[position + 1])
            let v = c1 * 256 + c2 - 1
            guard v >= 0, v < 64000 else { throw Failure.codeword(position) }
            position += 2
            return [v / 1600, v / 40 % 40, v % 40]
        }

        mutating func decodeC40Text(text: Bool) throws {
            var shift = 0
            var upper = false
            func emit(_ value: Int, _ current: inout [UInt8]) {
                current.append(UInt8((upper ? value + 128 : value) & 0xFF))
                upper = false
            }
            while let values = try triple() {
                for v in values {
                    let at = position - 2
                    switch shift {
                    case 0:
                        switch v {
                        case 0...2: shift = v + 1
                        case 3: emit(32, &current)
                        case 4...13: emit(48 + v - 4, &current)
                        default: emit((text ? 97 : 65) + v - 14, &current)
                        }
                        continue
                    case 1:
                        emit(v, &current)
                    case 2:
                        switch v {
                        case 0...14: emit(33 + v, &current)
                        case 15...21: emit(58 + v - 15, &current)
                        case 22...26: emit(91 + v - 22, &current)
                        case 27:
                            stream.special = true
                            if upper { throw Failure.codeword(at) }
                            current.append(DataMatrixStream.gs)
                        case 30: upper = true
                        default: throw Failure.codeword(at)
                        }
                    default:
                        if !text {
                            guard v <= 31 else { throw Failure.codeword(at) }
                            emit(96 + v, &current)
                        } else {
                            switch v {
                            case 0: emit(96, &current)
                            case 1...26: emit(65 + v - 1, &current)
                            case 27...31: emit(123 + v - 27, &current)
                            default: throw Failure.codeword(at)
                            }
                        }
                    }
                    shift = 0
                }
            }
            if shift != 0 || upper { throw Failure.truncated }
        }

        mutating func decodeX12() throws {
            while let values = try triple() {
                for v in values {
                    switch v {
                    case 0: current.append(13)
                    case 1: current.append(42)
                    case 2: current.append(62)
                    case 3: current.append(32)
                    case 4...13: current.append(UInt8(48 + v - 4))
                    case 14...39: current.append(UInt8(65 + v - 14))
                    default: throw Failure.codeword(position - 2)
                    }
                }
            }
        }

        mutating func decodeEDIFACT() throws {
            // Four 6-bit values in three codewords; 0b011111 returns to ASCII at the next codeword.
            // With fewer than three codewords left the rest is ASCII.
            while data.count - position >= 3 {
                let bits = Int(data[position]) << 16 | Int(data[position + 1]) << 8 | Int(data[position + 2])
                for k in 0..<4 {
                    let v = bits >> (18 - 6 * k) & 0x3F
                    if v == 0x1F {
                        // Unlatch: the codeword holding its last bit is the last one of EDIFACT.
                        position += [1, 2, 3, 3][k]
                        return
                    }
                    current.append(UInt8(v & 0x20 == 0 ? v | 0x40 : v))
                }
                position += 3
            }
        }

        mutating func decodeBase256() throws {
            func unrandomized(_ index: Int) throws -> Int {
                guard index < data.count else { throw Failure.truncated }
                let pseudo = (149 * (index + 1)) % 255 + 1
                let v = Int(data[index]) - pseudo
                return v >= 0 ? v : v + 256
            }
            let d1 = try unrandomized(position)
            position += 1
            let length: Int
            if d1 == 0 {
                length = data.count - position
            } else if d1 <= 249 {
                length = d1
            } else {
                let d2 = try unrandomized(position)
                position += 1
                length = (d1 - 249) * 250 + d2
            }
            guard position + length <= data.count else { throw Failure.truncated }
            for i in position..<position + length { current.append(UInt8(try unrandomized(i))) }
            position += length
        }
    }
}

/// The Reed–Solomon check of DataMatrix ECC 200: GF(2⁸) modulo x⁸ + x⁵ + x³ + x² + 1 (0x12D, the
/// field Aztec Code's 8-bit words use too: ``GaloisField/gf256``), the generator's roots α¹ … αⁿ,
/// blocks interleaved codeword by codeword.
enum DataMatrixCheck {

    /// Whether every block of `codewords` (data words then error words, interleaved over `blocks`
    /// blocks, block `b` holding `dataSizes[b]` data words) is a codeword: every syndrome zero.
    static func isValid(_ codewords: [UInt8], dataWords: Int, errorWordsPerBlock: Int, dataSizes: [Int]) -> Bool {
        let blocks = dataSizes.count
        guard blocks > 0, codewords.count == dataWords + errorWordsPerBlock * blocks else { return false }
        let field = GaloisField.gf256
        for b in 0..<blocks {
            var block: [UInt8] = []
            for k in 0..<dataSizes[b] { block.append(codewords[b + k * blocks]) }
            for k in 0..<errorWordsPerBlock { block.append(codewords[dataWords + b + k * blocks]) }
            for i in 1...errorWordsPerBlock {
                var s = 0
                // s = s·αⁱ + w, word by word.
                for w in block { s = field.multiply(s, field.power(i)) ^ Int(w) }
                if s != 0 { return false }
            }
        }
        return true
    }
}

extension DataMatrixStream {
    /// The data as text, and the character set of its bytes; nil when the bytes are binary or not
    /// valid in the character set an ECI names. Bytes under an ECI follow it; bytes under none are
    /// recognised as UTF-8 (which covers ASCII) or else ISO/IEC 8859-1, the standard's default, all
    /// of them together so one decision covers them.
    func text() -> (text: String, charset: String)? {
        let unmarked = segments.filter { $0.eci == nil }.flatMap(\.bytes)
        var guessed: (text: String, charset: String)?
        if !unmarked.isEmpty || segments.isEmpty {
            guard let g = TextDecoding.decode(unmarked, shiftJIS: false) else { return nil }
            guessed = g
        }
        var text = ""
        var charset: String?
        for segment in segments {
            if let eci = segment.eci {
                guard let (s, name) = QRBitstream.decode(segment.bytes, eci: eci), TextDecoding.isPlausibleText(s) else { return nil }
                text += s
                charset = name
            } else {
                guard let g = guessed, let s = QRBitstream.decode(segment.bytes, charset: g.charset) else { return nil }
                text += s
                charset = g.charset
            }
        }
        return (text, charset ?? guessed?.charset ?? "utf-8")
    }
}
