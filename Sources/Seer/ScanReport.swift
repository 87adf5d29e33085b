import SeerImage
import SeerPlate
import SeerQR
import SeerVerify

/// What `seer scan` reports for one photo, one JSON object per line: `file`, `width`, `height`,
/// `orientation` (as `seer info` reports them), `symbols`, and `plates` when plates were read.
/// Further keys may be added; none is renamed.
///
/// ``Engine/scan(contentsOf:_:store:)`` returns the same model with each code's answer filled in
/// (`verification` or `charger` on a symbol) and, when asked, the top plate's `resolvedOwner`.
public struct ScanReport: Codable, Sendable, Equatable {
    /// One code read.
    public struct ScannedSymbol: Codable, Sendable, Equatable {
        /// The symbology: a ``Symbology`` raw value (`qr`, `ean13`, `code128`, `databar-exp`, …).
        public var format: String
        /// The payload as text, or `null` when it is binary.
        public var text: String?
        /// The payload bytes, base64.
        public var bytes: String
        /// The character set `text` was decoded with, when there is text.
        public var charset: String?
        /// Four corners `[[x, y], …]` (top-left, top-right, bottom-right, bottom-left as the code reads)
        /// in the displayed image's pixels.
        public var corners: [[Double]]
        /// The axis-aligned box around the corners: `[x, y, width, height]`.
        public var box: [Double]
        /// zbar's quality score (zbar's own measure; for QR always 1).
        public var quality: Int
        /// Whether the data is GS1 (FNC1 in first position; separators are GS, 0x1D).
        public var gs1: Bool
        /// For one symbol of a QR structured-append sequence: `index` (from 0), `count` and `parity`;
        /// absent otherwise.
        public var structuredAppend: StructuredAppend?
        /// The product verification of this code, when it was verified (``Engine/scan(contentsOf:_:store:)``
        /// verifies every code that is not a charger code). Absent from `seer scan`'s output.
        public var verification: Verification?
        /// What to do at the charger this code names, when it is a charger code and was resolved
        /// (``Engine/scan(contentsOf:_:store:)``). Absent from `seer scan`'s output.
        public var charger: ChargerResolution?

        enum CodingKeys: String, CodingKey { case format, text, bytes, charset, corners, box, quality, gs1, structuredAppend, verification, charger }

        /// Encodes every key, `text` and `charset` as `null` when absent; `verification` and `charger`
        /// only when present.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(format, forKey: .format)
            try c.encode(text, forKey: .text)
            try c.encode(bytes, forKey: .bytes)
            try c.encode(charset, forKey: .charset)
            try c.encode(corners, forKey: .corners)
            try c.encode(box, forKey: .box)
            try c.encode(quality, forKey: .quality)
            try c.encode(gs1, forKey: .gs1)
            try c.encodeIfPresent(structuredAppend, forKey: .structuredAppend)
            try c.encodeIfPresent(verification, forKey: .verification)
            try c.encodeIfPresent(charger, forKey: .charger)
        }

        /// The JSON form of a ``Symbol``.
        public init(_ s: Symbol) {
            format = s.symbology.rawValue
            text = s.text
            bytes = Base64.encode(s.bytes)
            charset = s.charset
            func r(_ v: Double) -> Double { (v * 10).rounded() / 10 }
            corners = s.corners.map { [r($0.x), r($0.y)] }
            let b = s.box
            box = [r(b.x), r(b.y), r(b.width), r(b.height)]
            quality = s.quality
            gs1 = s.isGS1
            structuredAppend = s.structuredAppend
        }
    }

    /// The input's path (`-` for standard input).
    public var file: String
    /// Width as displayed (after orientation).
    public var width: Int
    /// Height as displayed (after orientation).
    public var height: Int
    /// The stored EXIF orientation, 1–8.
    public var orientation: Int
    /// The codes read, in the order found; empty when none was found or codes were not read.
    public var symbols: [ScannedSymbol]
    /// The licence plates read, most trustworthy first, when plates were asked for (`nil`, and absent
    /// from the JSON, when they were not; empty when none was found).
    public var plates: [PlateReading]?
    /// Who owns the top plate, as an opaque recipient (never a name or an email), when
    /// ``Engine/scan(contentsOf:_:store:)`` was asked to resolve it and a plate was read.
    public var resolvedOwner: PlateResolution?
    /// Milliseconds spent on this photo (decoding and reading), when timing was asked for.
    public var milliseconds: Double?
    /// Of ``milliseconds``, the time spent reading and decoding the file (the rest is recognition),
    /// when timing was asked for.
    public var decodeMilliseconds: Double?
    /// Processor time of the thread that read this photo, in milliseconds, when timing was asked for
    /// (less than ``milliseconds`` on a loaded machine: a measure of work that does not depend on load).
    public var cpuMilliseconds: Double?
    /// Of ``cpuMilliseconds``, the processor time spent reading and decoding the file.
    public var decodeCpuMilliseconds: Double?

    /// Creates a report.
    public init(file: String, info: ImageInfo, symbols: [Symbol], plates: [PlateReading]? = nil, milliseconds: Double? = nil) {
        self.file = file
        self.width = info.width
        self.height = info.height
        self.orientation = info.orientation.rawValue
        self.symbols = symbols.map(ScannedSymbol.init)
        self.plates = plates
        self.milliseconds = milliseconds
    }

    /// Removes the four timings, as `seer scan` prints a report without `--timing`.
    public mutating func removeTimings() {
        milliseconds = nil
        decodeMilliseconds = nil
        cpuMilliseconds = nil
        decodeCpuMilliseconds = nil
    }
}

/// Standard base64 (RFC 4648, with padding), without Foundation.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 2 < bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            for s in [18, 12, 6, 0] { out.append(alphabet[Int((n >> UInt32(s)) & 63)]) }
            i += 3
        }
        let rest = bytes.count - i
        if rest > 0 {
            var n = UInt32(bytes[i]) << 16
            if rest == 2 { n |= UInt32(bytes[i + 1]) << 8 }
            out.append(alphabet[Int((n >> 18) & 63)])
            out.append(alphabet[Int((n >> 12) & 63)])
            out.append(rest == 2 ? alphabet[Int((n >> 6) & 63)] : UInt8(ascii: "="))
            out.append(UInt8(ascii: "="))
        }
        return String(decoding: out, as: UTF8.self)
    }
}
