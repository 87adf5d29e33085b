internal import CZBar
import SeerImage

/// A symbol as zbar returned it, in the scanned image's coordinates.
struct RawSymbol: Sendable {
    var symbology: Symbology
    var bytes: [UInt8]
    /// zbar's location polygon (for QR: the four corners in zbar's order).
    var points: [Point]
    var quality: Int
    var isGS1: Bool
    /// For QR Codes Seer decoded itself (or confirmed by decoding them itself): the decoding.
    var qr: DecodedQR? = nil
    /// For DataMatrix: the decoded data stream (its segments, ECI and headers).
    var dataMatrix: DataMatrixStream? = nil
    /// For MaxiCode: the decoded message (its segments and structured append).
    var maxiCode: DecodedMaxiCode? = nil
    /// For linear codes: whether a second reading of the bars agreed (``LinearCheck``).
    var barsAgree = false
    /// For EAN/UPC: confirmed twice over (the edges and the rendering both agree), or decoded whole
    /// by Seer from single lines (``ReadSession/readAcrossPatches()``).
    var confirmedTwice = false
}

/// The lines a zbar scan follows across an image.
struct ScanLines: Equatable, Sendable, CustomStringConvertible {
    var rows: Bool
    var columns: Bool
    static let both = ScanLines(rows: true, columns: true)

    /// How many of the two directions are scanned.
    var directions: Int { (rows ? 1 : 0) + (columns ? 1 : 0) }

    var description: String { rows && columns ? "rows and columns" : rows ? "rows" : columns ? "columns" : "none" }
}

/// Owns one zbar image scanner (`zbar_image_scanner_t`), configured for a set of symbologies.
///
/// Not thread-safe: use one per worker (``ScannerPool``). QR payloads are read in binary mode
/// (`ZBAR_CFG_BINARY`) so the bytes are exactly as encoded and text decoding is ours.
final class ZBarScanner {
    private var handle: OpaquePointer?
    let symbologies: Set<Symbology>

    init(symbologies: Set<Symbology>) {
        self.symbologies = symbologies
    }

    deinit { if let handle { zbar_image_scanner_destroy(handle) } }

    /// Starts a new photo on a fresh zbar scanner. zbar keeps state from one image to the next (its
    /// EAN decoder the halves of a symbol seen last, its QR reader a random generator), so a scanner
    /// used again could read what the photo does not hold, and a photo's reading would depend on the
    /// photos its worker read before it. The passes over one photo share the scanner, made when the
    /// first of them scans (a photo the locator reads alone costs none).
    func startPhoto() {
        if let handle { zbar_image_scanner_destroy(handle) }
        handle = nil
    }

    /// A zbar image scanner configured for ``symbologies``.
    private func makeHandle() -> OpaquePointer? {
        guard let handle = zbar_image_scanner_create() else { return nil }
        zbar_image_scanner_set_config(handle, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        var enabled = symbologies
        // zbar decodes UPC-A and UPC-E inside its EAN-13 decoder: that must be on for them.
        if !symbologies.isDisjoint(with: [.upca, .upce]) { enabled.insert(.ean13) }
        for s in enabled {
            if let type = Self.zbarType(s) { zbar_image_scanner_set_config(handle, type, ZBAR_CFG_ENABLE, 1) }
        }
        zbar_image_scanner_set_config(handle, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
        return handle
    }

    /// zbar's type for a symbology it reads (nil for those Seer reads itself).
    static func zbarType(_ s: Symbology) -> zbar_symbol_type_t? {
        switch s {
        case .qr: ZBAR_QRCODE
        case .ean13: ZBAR_EAN13
        case .ean8: ZBAR_EAN8
        case .upca: ZBAR_UPCA
        case .upce: ZBAR_UPCE
        case .code128: ZBAR_CODE128
        case .code39: ZBAR_CODE39
        case .i25: ZBAR_I25
        case .databar: ZBAR_DATABAR
        case .databarExpanded: ZBAR_DATABAR_EXP
        case .codabar: ZBAR_CODABAR
        case .code93: ZBAR_CODE93
        default: nil
        }
    }

    static func symbology(_ t: zbar_symbol_type_t) -> Symbology? {
        switch t {
        case ZBAR_QRCODE: .qr
        case ZBAR_EAN13: .ean13
        case ZBAR_EAN8: .ean8
        case ZBAR_UPCA: .upca
        case ZBAR_UPCE: .upce
        case ZBAR_CODE128: .code128
        case ZBAR_CODE39: .code39
        case ZBAR_I25: .i25
        case ZBAR_DATABAR: .databar
        case ZBAR_DATABAR_EXP: .databarExpanded
        case ZBAR_CODABAR: .codabar
        case ZBAR_CODE93: .code93
        default: nil
        }
    }

    /// Scans a grey image (`zbar_scan_image` on a Y800 image). `density` scans every n-th line (a
    /// symbol's quality, zbar's count of the lines that read it, is multiplied by it: the lines a
    /// scan of every line would have seen);
    /// `lines` says which lines: rows, columns or both; `qr` whether zbar's QR reader runs too (when
    /// the scanner reads QR Codes at all).
    func scan(_ image: GrayImage, density: Int = 1, lines: ScanLines = .both, qr: Bool = true) -> [RawSymbol] {
        if handle == nil { handle = makeHandle() }
        guard image.width > 0, image.height > 0, let handle else { return [] }
        if symbologies.contains(.qr) { zbar_image_scanner_set_config(handle, ZBAR_QRCODE, ZBAR_CFG_ENABLE, qr ? 1 : 0) }
        // zbar's X density spaces its vertical scan lines (columns), its Y density its horizontal
        // ones (rows); 0 scans none.
        zbar_image_scanner_set_config(handle, ZBAR_NONE, ZBAR_CFG_X_DENSITY, lines.columns ? Int32(density) : 0)
        zbar_image_scanner_set_config(handle, ZBAR_NONE, ZBAR_CFG_Y_DENSITY, lines.rows ? Int32(density) : 0)
        guard let zimage = zbar_image_create() else { return [] }
        defer { zbar_image_destroy(zimage) }
        zbar_image_set_format(zimage, 0x3030_3859)  // "Y800"
        zbar_image_set_size(zimage, UInt32(image.width), UInt32(image.height))
        var out: [RawSymbol] = []
        image.pixels.withUnsafeBufferPointer { buffer in
            zbar_image_set_data(zimage, buffer.baseAddress, UInt(buffer.count), nil)
            let n = zbar_scan_image(handle, zimage)
            guard n > 0 else { return }
            var symbol = zbar_image_first_symbol(zimage)
            while let s = symbol {
                defer { symbol = zbar_symbol_next(s) }
                guard let kind = Self.symbology(zbar_symbol_get_type(s)), symbologies.contains(kind) else { continue }
                let length = Int(zbar_symbol_get_data_length(s))
                var bytes = [UInt8](repeating: 0, count: length)
                if length > 0, let data = zbar_symbol_get_data(s) {
                    data.withMemoryRebound(to: UInt8.self, capacity: length) { p in
                        for i in 0..<length { bytes[i] = p[i] }
                    }
                }
                var points: [Point] = []
                let count = zbar_symbol_get_loc_size(s)
                for i in 0..<count {
                    points.append(
                        Point(x: Double(zbar_symbol_get_loc_x(s, i)), y: Double(zbar_symbol_get_loc_y(s, i))))
                }
                let gs1 = (zbar_symbol_get_modifiers(s) & (1 << ZBAR_MOD_GS1.rawValue)) != 0
                out.append(
                    RawSymbol(
                        symbology: kind, bytes: bytes, points: points,
                        quality: Int(zbar_symbol_get_quality(s)) * density, isGS1: gs1))
            }
            // The data pointer belongs to `pixels`: detach it before the image is destroyed.
            zbar_image_set_data(zimage, nil, 0, nil)
        }
        return out
    }
}
