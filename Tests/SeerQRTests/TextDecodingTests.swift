import Foundation
import Testing

@testable import SeerQR

@Suite("Text from payload bytes")
struct TextDecodingTests {
    struct Case: Sendable, CustomStringConvertible {
        var bytes: [UInt8]
        var text: String?
        var charset: String?
        var description: String { "\(text ?? "binary") \(charset ?? "")" }
    }

    static let cases: [Case] = [
        Case(bytes: Array("hello, world".utf8), text: "hello, world", charset: "utf-8"),
        Case(bytes: Array("日本語のテキスト".utf8), text: "日本語のテキスト", charset: "utf-8"),
        Case(bytes: Array("Grüße".utf8), text: "Grüße", charset: "utf-8"),
        // Shift_JIS: 日本語 = 93FA 967B 8CEA
        Case(bytes: [0x93, 0xFA, 0x96, 0x7B, 0x8C, 0xEA], text: "日本語", charset: "shift_jis"),
        // Half-width katakana among ASCII: ﾃﾞｻﾞｲﾝQR
        Case(bytes: [0xC3, 0xDE, 0xBB, 0xDE, 0xB2, 0xDD, 0x51, 0x52], text: "ﾃﾞｻﾞｲﾝQR", charset: "shift_jis"),
        // ISO-8859-1 text that is neither UTF-8 nor Japanese-looking Shift_JIS.
        Case(bytes: [0x47, 0x72, 0xFC, 0xDF, 0x65, 0x20, 0x61, 0x75, 0x73, 0x20, 0x4B, 0xF6, 0x6C, 0x6E],
             text: "Grüße aus Köln", charset: "iso-8859-1"),
        Case(bytes: [0x43, 0x61, 0x66, 0xE9, 0x20, 0x21], text: "Café !", charset: "iso-8859-1"),
        // GS1 element strings keep their GS separators.
        Case(bytes: Array("0109501101020917\u{1D}10ABC".utf8), text: "0109501101020917\u{1D}10ABC", charset: "utf-8"),
        // Binary: control bytes, or bytes valid in no candidate set.
        Case(bytes: [0x00, 0x01, 0x02, 0xFF], text: nil, charset: nil),
        Case(bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], text: nil, charset: nil),
    ]

    @Test(arguments: cases)
    func decode(_ c: Case) {
        let result = TextDecoding.decode(c.bytes)
        #expect(result?.text == c.text)
        #expect(result?.charset == c.charset)
    }

    /// Latin-1 text with accented letters before letters is also valid Shift_JIS (`è b` and `à a`
    /// are one kanji each). Two in a row are read as Latin-1 by every symbology; three as Japanese
    /// by the QR family alone, whose Kanji mode is made for it, and as ISO-8859-1, the default, by
    /// the others; bytes that are Japanese and nothing else are then not text.
    @Test func shiftJISIsGuessedForRunsOfThreeAndTheQRFamilyAlone() {
        let two: [UInt8] = [0x32, 0xE8, 0x62, 0xE0, 0x61, 0x34]
        #expect(TextDecoding.decode(two)?.text == "2èbàa4")
        #expect(TextDecoding.decode(two)?.charset == "iso-8859-1")
        let three: [UInt8] = [0xE8, 0x62, 0xE0, 0x61, 0xE9, 0x63]
        #expect(TextDecoding.decode(three)?.charset == "shift_jis")
        #expect(TextDecoding.decode(three, shiftJIS: false)?.text == "èbàaéc")
        #expect(TextDecoding.decode(three, shiftJIS: false)?.charset == "iso-8859-1")
        // 日本 in Shift_JIS holds bytes in 0x80–0x9F, C1 controls in ISO-8859-1.
        #expect(TextDecoding.decode([0x93, 0xFA, 0x96, 0x7B], shiftJIS: false) == nil)
    }
}
