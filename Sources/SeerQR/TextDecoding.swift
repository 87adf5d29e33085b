import Foundation

/// Turns a code's raw payload bytes into text without guessing wrong.
///
/// QR byte segments carry no character set unless an ECI says so, and zbar in binary mode hands over
/// the bytes alone. The order: valid UTF-8 (which also covers plain ASCII) → Shift_JIS when the bytes
/// are valid Shift_JIS and look like Japanese (runs of three double-byte characters or half-width
/// katakana, or bytes ISO-8859-1 does not have) → ISO-8859-1 when no byte is a C1 control →
/// otherwise binary (`nil`). Shift_JIS is guessed only for the QR family, whose Kanji mode is made
/// for it; every other symbology's default character set is ISO-8859-1, and Latin-1 text with two
/// accented letters in a row (`èb`, `àa`) is valid Shift_JIS too.
/// Text that holds control characters other than tab, line feed, carriage return and the ISO/IEC
/// 15434 separators (GS, RS, EOT, FS, US) is reported as binary.
public enum TextDecoding {
    /// The decoded text and the character set's name, or `nil` when the bytes are not text; with
    /// `shiftJIS` false, bytes that are not UTF-8 are read as ISO-8859-1 only.
    public static func decode(_ bytes: [UInt8], shiftJIS: Bool = true) -> (text: String, charset: String)? {
        if bytes.isEmpty { return ("", "utf-8") }
        // Control bytes other than the allowed ones mean binary in every candidate character set.
        for b in bytes where b < 0x20 || b == 0x7F {
            switch b {
            case 0x09, 0x0A, 0x0D, 0x1D, 0x1E, 0x04, 0x1C, 0x1F: continue
            default: return nil
            }
        }
        if let s = String(validating: bytes, as: UTF8.self) {
            return isPlausibleText(s) ? (s, "utf-8") : nil
        }
        let latinOK = !bytes.contains { $0 >= 0x80 && $0 < 0xA0 }
        if shiftJIS, let stats = shiftJISStats(bytes), let s = String(bytes: bytes, encoding: .shiftJIS) {
            // Japanese text: three double-byte characters in a row, or three half-width katakana,
            // or any double-byte character when ISO-8859-1 is impossible. (Two in a row are as
            // likely to be Latin-1: `èb` and `à` are one kanji each, `ÉÜ` two katakana.)
            if stats.maxDoubleRun >= 3 || stats.maxKatakanaRun >= 3 || !latinOK
                || (stats.doubleBytes > 0 && stats.doubleBytes * 2 >= stats.highBytes)
                    && stats.oddLatin
            {
                return isPlausibleText(s) ? (s, "shift_jis") : nil
            }
        }
        if latinOK {
            let s = String(decoding: bytes.map { UInt16($0) }, as: UTF16.self)
            return isPlausibleText(s) ? (s, "iso-8859-1") : nil
        }
        return nil
    }

    struct ShiftJISStats {
        var doubleBytes = 0
        var maxDoubleRun = 0
        var maxKatakanaRun = 0
        var highBytes = 0
        /// The bytes read as ISO-8859-1 would give symbols rarely seen in Latin text.
        var oddLatin = false
    }

    /// Validates Shift_JIS structure (JIS X 0208 lead/trail ranges, half-width katakana).
    static func shiftJISStats(_ bytes: [UInt8]) -> ShiftJISStats? {
        var st = ShiftJISStats()
        var i = 0, run = 0, kana = 0
        while i < bytes.count {
            let b = bytes[i]
            if b >= 0x80 { st.highBytes += 1 }
            if b < 0x80 {
                run = 0
                kana = 0
                i += 1
            } else if b >= 0xA1 && b <= 0xDF {
                kana += 1
                st.maxKatakanaRun = max(st.maxKatakanaRun, kana)
                run = 0
                i += 1
            } else if (b >= 0x81 && b <= 0x9F) || (b >= 0xE0 && b <= 0xEF) {
                guard i + 1 < bytes.count else { return nil }
                let t = bytes[i + 1]
                guard (t >= 0x40 && t <= 0x7E) || (t >= 0x80 && t <= 0xFC) else { return nil }
                if t >= 0x80 { st.highBytes += 1 }
                if b < 0xA0 || t < 0x40 || (t >= 0x80 && t < 0xA0) { st.oddLatin = true }
                st.doubleBytes += 1
                run += 1
                kana = 0
                st.maxDoubleRun = max(st.maxDoubleRun, run)
                i += 2
            } else {
                return nil
            }
        }
        return st
    }

    static func isPlausibleText(_ s: String) -> Bool {
        for u in s.unicodeScalars {
            let v = u.value
            if v < 0x20 {
                switch v {
                case 0x09, 0x0A, 0x0D, 0x1D, 0x1E, 0x04, 0x1C, 0x1F: continue
                default: return false
                }
            }
            if v == 0x7F || (v >= 0x80 && v < 0xA0) { return false }
        }
        return true
    }
}
