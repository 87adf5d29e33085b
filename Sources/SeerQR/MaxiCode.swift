import Foundation

/// MaxiCode (ISO/IEC 16023): the module layout, the error correction of the primary and secondary
/// messages and the code sets of the data. The locator and sampler are in `MaxiCodeLocator.swift`.
///
/// A symbol is 33 rows of 30 hexagonal modules (the odd rows, half a module to the right, use 29)
/// around a bull's-eye. Its 144 six-bit codewords are the primary message (codewords 1–20: 10 data,
/// 10 check) and the secondary message (the other 124, odd and even codewords two interleaved
/// Reed–Solomon blocks: 42 data and 20 check each under standard error correction, 34 and 28 under
/// enhanced), all over GF(64) (x⁶ + x + 1, generator roots α¹ … α^k, as Aztec's GF(64)).
enum MaxiCode {
    static let rows = 33
    static let columns = 30
    /// Each module's place in the codeword stream, row by row (codeword = bit / 6, the bit's weight
    /// 2^(5 − bit % 6)); −1 for the bull's-eye, the orientation modules and the unused ones. The
    /// placement of ISO/IEC 16023's symbol layout, measured module by module on symbols of known
    /// codewords (`TestImages/maxicode/layout.py`).
    static let layout: [Int16] = [
        121, 120, 127, 126, 133, 132, 139, 138, 145, 144, 151, 150, 157, 156, 163, 162, 169, 168, 175, 174, 181, 180, 187, 186, 193, 192, 199, 198, -1, -1,
        123, 122, 129, 128, 135, 134, 141, 140, 147, 146, 153, 152, 159, 158, 165, 164, 171, 170, 177, 176, 183, 182, 189, 188, 195, 194, 201, 200, 816, -1,
        125, 124, 131, 130, 137, 136, 143, 142, 149, 148, 155, 154, 161, 160, 167, 166, 173, 172, 179, 178, 185, 184, 191, 190, 197, 196, 203, 202, 818, 817,
        283, 282, 277, 276, 271, 270, 265, 264, 259, 258, 253, 252, 247, 246, 241, 240, 235, 234, 229, 228, 223, 222, 217, 216, 211, 210, 205, 204, 819, -1,
        285, 284, 279, 278, 273, 272, 267, 266, 261, 260, 255, 254, 249, 248, 243, 242, 237, 236, 231, 230, 225, 224, 219, 218, 213, 212, 207, 206, 821, 820,
        287, 286, 281, 280, 275, 274, 269, 268, 263, 262, 257, 256, 251, 250, 245, 244, 239, 238, 233, 232, 227, 226, 221, 220, 215, 214, 209, 208, 822, -1,
        289, 288, 295, 294, 301, 300, 307, 306, 313, 312, 319, 318, 325, 324, 331, 330, 337, 336, 343, 342, 349, 348, 355, 354, 361, 360, 367, 366, 824, 823,
        291, 290, 297, 296, 303, 302, 309, 308, 315, 314, 321, 320, 327, 326, 333, 332, 339, 338, 345, 344, 351, 350, 357, 356, 363, 362, 369, 368, 825, -1,
        293, 292, 299, 298, 305, 304, 311, 310, 317, 316, 323, 322, 329, 328, 335, 334, 341, 340, 347, 346, 353, 352, 359, 358, 365, 364, 371, 370, 827, 826,
        409, 408, 403, 402, 397, 396, 391, 390, 79, 78, -1, -1, 13, 12, 37, 36, 2, -1, 44, 43, 109, 108, 385, 384, 379, 378, 373, 372, 828, -1,
        411, 410, 405, 404, 399, 398, 393, 392, 81, 80, 40, -1, 15, 14, 39, 38, 3, -1, -1, 45, 111, 110, 387, 386, 381, 380, 375, 374, 830, 829,
        413, 412, 407, 406, 401, 400, 395, 394, 83, 82, 41, -1, -1, -1, -1, -1, 5, 4, 47, 46, 113, 112, 389, 388, 383, 382, 377, 376, 831, -1,
        415, 414, 421, 420, 427, 426, 103, 102, 55, 54, 16, -1, -1, -1, -1, -1, -1, -1, 20, 19, 85, 84, 433, 432, 439, 438, 445, 444, 833, 832,
        417, 416, 423, 422, 429, 428, 105, 104, 57, 56, -1, -1, -1, -1, -1, -1, -1, -1, 22, 21, 87, 86, 435, 434, 441, 440, 447, 446, 834, -1,
        419, 418, 425, 424, 431, 430, 107, 106, 59, 58, -1, -1, -1, -1, -1, -1, -1, -1, -1, 23, 89, 88, 437, 436, 443, 442, 449, 448, 836, 835,
        481, 480, 475, 474, 469, 468, 48, -1, 30, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 53, 52, 463, 462, 457, 456, 451, 450, 837, -1,
        483, 482, 477, 476, 471, 470, 49, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 465, 464, 459, 458, 453, 452, 839, 838,
        485, 484, 479, 478, 473, 472, 51, 50, 31, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 1, -1, 42, 467, 466, 461, 460, 455, 454, 840, -1,
        487, 486, 493, 492, 499, 498, 97, 96, 61, 60, -1, -1, -1, -1, -1, -1, -1, -1, -1, 26, 91, 90, 505, 504, 511, 510, 517, 516, 842, 841,
        489, 488, 495, 494, 501, 500, 99, 98, 63, 62, -1, -1, -1, -1, -1, -1, -1, -1, 28, 27, 93, 92, 507, 506, 513, 512, 519, 518, 843, -1,
        491, 490, 497, 496, 503, 502, 101, 100, 65, 64, 17, -1, -1, -1, -1, -1, -1, -1, 18, 29, 95, 94, 509, 508, 515, 514, 521, 520, 845, 844,
        559, 558, 553, 552, 547, 546, 541, 540, 73, 72, 32, -1, -1, -1, -1, -1, -1, 10, 67, 66, 115, 114, 535, 534, 529, 528, 523, 522, 846, -1,
        561, 560, 555, 554, 549, 548, 543, 542, 75, 74, -1, -1, 7, 6, 35, 34, 11, -1, 69, 68, 117, 116, 537, 536, 531, 530, 525, 524, 848, 847,
        563, 562, 557, 556, 551, 550, 545, 544, 77, 76, -1, 33, 9, 8, 25, 24, -1, -1, 71, 70, 119, 118, 539, 538, 533, 532, 527, 526, 849, -1,
        565, 564, 571, 570, 577, 576, 583, 582, 589, 588, 595, 594, 601, 600, 607, 606, 613, 612, 619, 618, 625, 624, 631, 630, 637, 636, 643, 642, 851, 850,
        567, 566, 573, 572, 579, 578, 585, 584, 591, 590, 597, 596, 603, 602, 609, 608, 615, 614, 621, 620, 627, 626, 633, 632, 639, 638, 645, 644, 852, -1,
        569, 568, 575, 574, 581, 580, 587, 586, 593, 592, 599, 598, 605, 604, 611, 610, 617, 616, 623, 622, 629, 628, 635, 634, 641, 640, 647, 646, 854, 853,
        727, 726, 721, 720, 715, 714, 709, 708, 703, 702, 697, 696, 691, 690, 685, 684, 679, 678, 673, 672, 667, 666, 661, 660, 655, 654, 649, 648, 855, -1,
        729, 728, 723, 722, 717, 716, 711, 710, 705, 704, 699, 698, 693, 692, 687, 686, 681, 680, 675, 674, 669, 668, 663, 662, 657, 656, 651, 650, 857, 856,
        731, 730, 725, 724, 719, 718, 713, 712, 707, 706, 701, 700, 695, 694, 689, 688, 683, 682, 677, 676, 671, 670, 665, 664, 659, 658, 653, 652, 858, -1,
        733, 732, 739, 738, 745, 744, 751, 750, 757, 756, 763, 762, 769, 768, 775, 774, 781, 780, 787, 786, 793, 792, 799, 798, 805, 804, 811, 810, 860, 859,
        735, 734, 741, 740, 747, 746, 753, 752, 759, 758, 765, 764, 771, 770, 777, 776, 783, 782, 789, 788, 795, 794, 801, 800, 807, 806, 813, 812, 861, -1,
        737, 736, 743, 742, 749, 748, 755, 754, 761, 760, 767, 766, 773, 772, 779, 778, 785, 784, 791, 790, 797, 796, 803, 802, 809, 808, 815, 814, 863, 862
    ]

    /// The orientation modules (row, column): six clusters of three around the bull's-eye, dark or
    /// light as given; their pattern fixes which way up the symbol lies.
    static let orientation: [(row: Int, column: Int, dark: Bool)] = [
        (9, 10, true), (9, 11, true), (10, 11, true),  // above left: three dark
        (9, 17, false), (10, 17, false), (10, 18, false),  // above right: none
        (15, 7, true), (16, 7, false), (16, 8, true),  // left
        (16, 20, true), (16, 21, false), (17, 20, true),  // right
        (22, 10, true), (22, 11, false), (23, 10, true),  // below left
        (22, 17, true), (23, 16, false), (23, 17, true),  // below right
    ]

    /// Codeword values from a module grid (`rows` × `columns`, dark = true, row by row).
    static func codewords(_ modules: [Bool]) -> [Int] {
        var words = [Int](repeating: 0, count: 144)
        for (i, place) in layout.enumerated() where place >= 0 && i < modules.count && modules[i] {
            words[Int(place) / 6] |= 1 << (5 - Int(place) % 6)
        }
        return words
    }

    /// The data codewords of a symbol's 144 codewords, every Reed–Solomon block corrected, and its
    /// mode; nil when a block does not correct within its limit or the mode is not 2–6.
    static func correct(_ words: [Int]) -> (data: [Int], mode: Int, corrected: Int)? {
        guard words.count == 144 else { return nil }
        var primary = Array(words[0..<20])
        guard let fixedPrimary = FieldReedSolomon.correct(&primary, checkCount: 10, field: .gf64) else { return nil }
        let mode = primary[0] & 15
        guard (2...6).contains(mode) else { return nil }
        let checks = mode == 5 ? 28 : 20
        let dataPerBlock = 62 - checks
        var data = Array(primary[0..<10])
        var secondary = [Int](repeating: 0, count: 2 * dataPerBlock)
        var corrected = fixedPrimary
        for block in 0..<2 {
            // Odd and even codewords of the secondary message (data first, then checks).
            var word = stride(from: 20 + block, to: 144, by: 2).map { words[$0] }
            guard let n = FieldReedSolomon.correct(&word, checkCount: checks, field: .gf64) else { return nil }
            corrected += n
            for i in 0..<dataPerBlock { secondary[2 * i + block] = word[i] }
        }
        data += secondary
        return (data, mode, corrected)
    }

    /// A module grid read: corrected and decoded.
    static func decode(_ modules: [Bool]) -> DecodedMaxiCode? {
        guard modules.count == rows * columns, let (data, mode, corrected) = correct(codewords(modules)) else { return nil }
        guard var decoded = MaxiCodeText.decode(data: data, mode: mode) else { return nil }
        decoded.corrected = corrected
        return decoded
    }
}

/// A MaxiCode symbol's decoded content.
struct DecodedMaxiCode: Equatable {
    /// The mode (2–6).
    var mode: Int
    /// The message as bytes (ISO/IEC 8859-1 where no ECI says otherwise), the structured carrier
    /// message's fields of modes 2 and 3 in it as the standard transmits them.
    var bytes: [UInt8]
    /// The message's parts and the ECI in force for each (nil: the default, ISO/IEC 8859-1).
    var segments: [(eci: Int?, bytes: [UInt8])]
    /// For a symbol of a structured-append sequence: its position (from 0) and the count.
    var structuredAppend: (index: Int, count: Int)?
    /// Codewords corrected by Reed–Solomon.
    var corrected = 0

    static func == (a: DecodedMaxiCode, b: DecodedMaxiCode) -> Bool {
        a.mode == b.mode && a.bytes == b.bytes && a.structuredAppend?.index == b.structuredAppend?.index
            && a.structuredAppend?.count == b.structuredAppend?.count
    }

    /// The text: each segment in its character set (ISO/IEC 8859-1 by default), or nil when a
    /// segment is not text.
    func text() -> (text: String, charset: String)? {
        var text = ""
        var charset = "iso-8859-1"
        for segment in segments {
            if let eci = segment.eci {
                guard let (s, name) = QRBitstream.decode(segment.bytes, eci: eci) else { return nil }
                text += s
                charset = name
            } else {
                text += String(decoding: segment.bytes.map { UInt16($0) }, as: UTF16.self)
            }
        }
        return TextDecoding.isPlausibleText(text) ? (text, charset) : nil
    }
}

/// The data codewords' meaning: the structured carrier message of modes 2 and 3, code sets A–E
/// with their shifts, latches and locks, Numeric Shift, ECI and structured append (ISO/IEC 16023).
enum MaxiCodeText {
    /// What a codeword does beyond standing for a character.
    enum Function: Equatable {
        case char(UInt8)
        case eci, numericShift, pad
        case shift(Int), latch(Int), lock
        case shiftA(count: Int)
    }

    static let fs: UInt8 = 0x1C, gs: UInt8 = 0x1D, rs: UInt8 = 0x1E

    /// Code sets A–E (0–4): each codeword's function.
    static let sets: [[Function]] = {
        func chars(_ values: [Int]) -> [Function] { values.map { .char(UInt8($0)) } }
        var a = [Function.char(13)] + chars(Array(65...90))
        a += [.eci, .char(fs), .char(gs), .char(rs), .numericShift, .char(32), .pad]
        a += chars(Array(34...58))
        a += [.shift(1), .shift(2), .shift(3), .shift(4), .latch(1)]
        var b = [Function.char(96)] + chars(Array(97...122))
        b += [.eci, .char(fs), .char(gs), .char(rs), .numericShift, .char(123), .pad]
        b += chars([125, 126, 127, 59, 60, 61, 62, 63, 91, 92, 93, 94, 95, 32, 44, 46, 47, 58, 64, 33, 124])
        b += [.pad, .shiftA(count: 2), .shiftA(count: 3), .pad, .shift(0), .shift(2), .shift(3), .shift(4), .latch(0)]
        var c = chars(Array(192...218))
        c += [.eci, .char(fs), .char(gs), .char(rs), .numericShift]
        c += chars([219, 220, 221, 222, 223, 170, 172, 177, 178, 179, 181, 185, 186, 188, 189, 190] + Array(128...137))
        c += [.latch(0), .char(32), .lock, .shift(3), .shift(4), .latch(1)]
        var d = chars(Array(224...250))
        d += [.eci, .char(fs), .char(gs), .char(rs), .numericShift]
        d += chars([251, 252, 253, 254, 255, 161, 168, 171, 175, 176, 180, 183, 184, 187, 191, 138] + Array(139...148))
        d += [.latch(0), .char(32), .shift(2), .lock, .shift(4), .latch(1)]
        var e = chars(Array(0...26))
        e += [.eci, .pad, .pad, .char(27), .numericShift, .char(fs), .char(gs), .char(rs), .char(31)]
        e += chars([159, 160, 162, 163, 164, 165, 166, 167, 169, 173, 174, 182] + Array(149...158))
        e += [.latch(0), .char(32), .shift(2), .shift(3), .lock, .latch(1)]
        return [a, b, c, d, e]
    }()

    /// Decodes the data codewords (the primary message's 10, then the secondary's) of a symbol of
    /// `mode`; nil when they break a rule (an ECI or Numeric Shift cut off by the end of the data,
    /// a lock after no shift, an ECI past 999 999, a mode 2 postcode longer than 9 digits or of
    /// more digits than its length says).
    static func decode(data: [Int], mode: Int) -> DecodedMaxiCode? {
        guard data.count >= 10 else { return nil }
        var carrier: [UInt8]? = nil
        let message: ArraySlice<Int>
        switch mode {
        case 2, 3:
            // The primary message's 60 bits, codeword i the i-th six from the low end: mode
            // (4 bits), postcode (36), country (10), class of service (10).
            var n: UInt64 = 0
            for i in (0..<10).reversed() { n = n << 6 | UInt64(data[i] & 63) }
            let country = Int(n >> 40 & 0x3FF), service = Int(n >> 50 & 0x3FF)
            guard country <= 999, service <= 999 else { return nil }
            var postcode: [UInt8]
            if mode == 2 {
                let value = n >> 4 & 0x3FFF_FFFF, length = Int(n >> 34 & 63)
                guard length >= 1, length <= 9 else { return nil }
                postcode = Array(String(value).utf8)
                guard postcode.count <= length else { return nil }
                postcode = [UInt8](repeating: 0x30, count: length - postcode.count) + postcode
            } else {
                postcode = []
                for k in 0..<6 {
                    guard case .char(let ch) = sets[0][Int(n >> (4 + 6 * (5 - k)) & 63)] else { return nil }
                    postcode.append(ch)
                }
            }
            func three(_ v: Int) -> [UInt8] { Array(String(format: "%03d", v).utf8) }
            carrier = postcode + [gs] + three(country) + [gs] + three(service) + [gs]
            message = data[10...]
        default:
            message = data[1...]
        }
        guard var out = decodeSets(Array(message)) else { return nil }
        if let carrier {
            // After an ISO/IEC 15434 header "[)>" RS "01" GS and two digits, the fields follow it;
            // otherwise they lead the message.
            let header: [UInt8] = Array("[)>".utf8) + [rs] + Array("01".utf8) + [gs]
            let first = out.segments.first?.bytes ?? []
            let at = first.count >= 9 && Array(first.prefix(7)) == header
                && first[7] >= 0x30 && first[7] <= 0x39 && first[8] >= 0x30 && first[8] <= 0x39 ? 9 : 0
            if out.segments.isEmpty { out.segments = [(nil, [])] }
            out.segments[0].bytes.insert(contentsOf: carrier, at: at)
        }
        let bytes = out.segments.flatMap(\.bytes)
        return DecodedMaxiCode(mode: mode, bytes: bytes, segments: out.segments, structuredAppend: out.structuredAppend)
    }

    /// The code sets' decoding of the message codewords.
    static func decodeSets(_ words: [Int]) -> (segments: [(eci: Int?, bytes: [UInt8])], structuredAppend: (index: Int, count: Int)?)? {
        var segments: [(eci: Int?, bytes: [UInt8])] = [(nil, [])]
        var structuredAppend: (index: Int, count: Int)?
        var i = 0
        // Structured append: Pad first, then (position − 1) · 8 + (count − 1).
        if words.count >= 2, words[0] == 33 {
            let index = words[1] >> 3 & 7, count = (words[1] & 7) + 1
            guard count >= 2, index < count else { return nil }
            structuredAppend = (index, count)
            i = 2
        }
        var set = 0, base = 0
        // Characters left under a shift (then back to `base`).
        var shifted = 0
        while i < words.count {
            let word = words[i]
            i += 1
            let function = sets[set][word]
            switch function {
            case .shift(let to):
                if shifted == 0 { base = set }
                set = to
                shifted = 1
                continue
            case .shiftA(let count):
                if shifted == 0 { base = set }
                set = 0
                shifted = count
                continue
            case .latch(let to):
                set = to
                base = to
                shifted = 0
                continue
            case .lock:
                // Locks in the set a shift chose (with no shift before it, the set stays).
                base = set
                shifted = 0
                continue
            case .char(let c):
                segments[segments.count - 1].bytes.append(c)
            case .pad:
                break
            case .numericShift:
                guard i + 5 <= words.count else { return nil }
                var value = 0
                for k in 0..<5 { value = value << 6 | words[i + k] }
                i += 5
                guard value <= 999_999_999 else { return nil }
                segments[segments.count - 1].bytes += Array(String(format: "%09d", value).utf8)
            case .eci:
                guard i < words.count else { return nil }
                let first = words[i]
                let extra = first & 0x20 == 0 ? 0 : first & 0x10 == 0 ? 1 : first & 0x08 == 0 ? 2 : first & 0x04 == 0 ? 3 : -1
                guard extra >= 0, i + 1 + extra <= words.count else { return nil }
                var value = first & (extra == 0 ? 0x1F : extra == 1 ? 0x0F : extra == 2 ? 0x07 : 0x03)
                for k in 0..<extra { value = value << 6 | words[i + 1 + k] }
                i += 1 + extra
                guard value <= 999_999 else { return nil }
                segments.append((value, []))
            }
            // A character (or Pad, Numeric Shift, ECI) used up one of a shift's characters.
            if shifted > 0 {
                shifted -= 1
                if shifted == 0 { set = base }
            }
        }
        let kept = segments.filter { $0.eci != nil || !$0.bytes.isEmpty }
        return (kept.isEmpty ? [(nil, [])] : kept, structuredAppend)
    }
}
