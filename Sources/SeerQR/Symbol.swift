/// A point in an image's pixel coordinates (x to the right, y down).
public struct Point: Sendable, Equatable, Hashable, Codable {
    /// Horizontal coordinate.
    public var x: Double
    /// Vertical coordinate.
    public var y: Double

    /// Creates a point.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// Whether the point lies inside the convex quadrilateral `corners` (four points in order
    /// around it), grown by `grow` about the corners' mean; false unless there are four corners.
    public func isInside(_ corners: [Point], grownBy grow: Double = 1) -> Bool {
        guard corners.count == 4 else { return false }
        let cx = (corners[0].x + corners[1].x + corners[2].x + corners[3].x) / 4
        let cy = (corners[0].y + corners[1].y + corners[2].y + corners[3].y) / 4
        // In coordinates about the centre, the grown corner is the corner scaled by `grow`.
        let px = x - cx, py = y - cy
        var sign = 0
        for i in 0..<4 {
            let a = corners[i], b = corners[(i + 1) & 3]
            let ax = (a.x - cx) * grow, ay = (a.y - cy) * grow
            let bx = (b.x - cx) * grow, by = (b.y - cy) * grow
            let cross = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
            let s = cross > 0 ? 1 : cross < 0 ? -1 : 0
            if s == 0 { continue }
            if sign == 0 { sign = s } else if s != sign { return false }
        }
        return true
    }
}

/// The kinds of code Seer reads. The raw value is the name used on the command line and in JSON.
public enum Symbology: String, Sendable, CaseIterable, Codable, Hashable {
    /// QR Code (model 2), the default.
    case qr
    /// EAN-13 (and UPC-A read as EAN-13 with a leading zero unless `upca` is asked for too).
    case ean13
    /// EAN-8.
    case ean8
    /// UPC-A.
    case upca
    /// UPC-E.
    case upce
    /// Code 128 (GS1-128 keeps its FNC1 separators as GS, 0x1D).
    case code128
    /// Code 39.
    case code39
    /// Interleaved 2 of 5.
    case i25
    /// GS1 DataBar (omnidirectional).
    case databar
    /// GS1 DataBar Expanded.
    case databarExpanded = "databar-exp"
    /// GS1 DataBar Limited, read by Seer's own decoder (the text is AI 01 and the GTIN-14, as for `databar`).
    case databarLimited = "databar-ltd"
    /// Codabar (the text keeps its start and stop characters, A–D).
    case codabar
    /// Code 93.
    case code93
    /// PDF417 (stacked rows of codewords; Macro PDF417 segments are read as their data).
    case pdf417
    /// MicroPDF417 (ISO/IEC 24728: PDF417's codewords in 1–4 columns between row address patterns).
    case micropdf417

    /// Micro QR Code (M1–M4).
    case microqr
    /// Rectangular Micro QR Code (rMQR, ISO/IEC 23941: R7x43 to R17x139).
    case rmqr
    /// Aztec Code (compact, full-range and runes), read by Seer's own decoder.
    case aztec
    /// DataMatrix ECC 200 (square and rectangular; GS1 DataMatrix keeps its FNC1 separators as GS, 0x1D).
    case datamatrix
    /// MaxiCode (modes 2–6; the structured carrier message of modes 2 and 3 as its fields, GS-separated).
    case maxicode

    /// Whether this is a two-dimensional symbology (every one but the linear codes).
    public var isMatrix: Bool {
        switch self {
        case .ean13, .ean8, .upca, .upce, .code128, .code39, .i25, .databar, .databarExpanded, .databarLimited, .codabar, .code93: false
        default: true
        }
    }

    /// Whether the symbology is found by QR Code's finder patterns (QR Code, Micro QR Code and rMQR).
    var hasFinderPatterns: Bool { self == .qr || self == .microqr || self == .rmqr }
}

/// One code read from an image.
public struct Symbol: Sendable, Equatable {
    /// What kind of code it is.
    public var symbology: Symbology
    /// The payload exactly as encoded: for QR the raw byte stream (all segments concatenated).
    public var bytes: [UInt8]
    /// The payload as text, when it is text: the ECI or a character set recognised from the bytes
    /// (UTF-8, Shift_JIS, ISO-8859-1). `nil` when the bytes are binary.
    public var text: String?
    /// The character set `text` was decoded with (`utf-8`, `shift_jis`, `iso-8859-1`), if any.
    public var charset: String?
    /// The code's outline in the displayed image's pixel coordinates: top-left, top-right,
    /// bottom-right, bottom-left as the code reads (for linear codes: the scanned segment's box).
    public var corners: [Point]
    /// zbar's quality score (for linear codes the number of scan lines that agreed; for QR 1).
    /// It is zbar's own measure, not a probability. A code carries no confidence: it is reported only
    /// when its decoding is certain (QR: Reed–Solomon within the standard's capacity and a valid data
    /// stream; linear codes: their check characters, and for EAN/UPC and Code 128 the bars read a
    /// second way not contradicting them), so every code reported is meant to be exactly right.
    public var quality: Int
    /// Whether the data is GS1 (an FNC1 in first position).
    public var isGS1: Bool
    /// For a QR Code that is one symbol of a structured-append sequence: its place in it. The text is
    /// this symbol's part; join the parts in `index` order (all sharing `parity`) for the message.
    public var structuredAppend: StructuredAppend?

    /// Creates a symbol.
    public init(
        symbology: Symbology, bytes: [UInt8], text: String?, charset: String?, corners: [Point],
        quality: Int, isGS1: Bool = false, structuredAppend: StructuredAppend? = nil
    ) {
        self.symbology = symbology
        self.bytes = bytes
        self.text = text
        self.charset = charset
        self.corners = corners
        self.quality = quality
        self.isGS1 = isGS1
        self.structuredAppend = structuredAppend
    }

    /// The mean of the corners.
    public var center: Point {
        guard !corners.isEmpty else { return Point(x: 0, y: 0) }
        let n = Double(corners.count)
        return Point(x: corners.map(\.x).reduce(0, +) / n, y: corners.map(\.y).reduce(0, +) / n)
    }

    /// The axis-aligned box around the corners: `(x, y, width, height)`.
    public var box: (x: Double, y: Double, width: Double, height: Double) {
        let xs = corners.map(\.x), ys = corners.map(\.y)
        let x0 = xs.min() ?? 0, y0 = ys.min() ?? 0
        return (x0, y0, (xs.max() ?? 0) - x0, (ys.max() ?? 0) - y0)
    }
}
