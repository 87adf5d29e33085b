/// An image container format, recognised from the leading bytes (never the file name).
public enum ImageFormat: String, Sendable, Codable, CaseIterable {
    /// Portable Network Graphics; decoded.
    case png
    /// JPEG (JFIF or Exif); decoded.
    case jpeg
    /// HEIF with HEVC-coded images, as iPhones save photos (`.heic`); decoded through libheif.
    case heic
    /// WebP, lossy or lossless, still or animated (the first frame); decoded through libwebp.
    case webp
    /// Recognised so the error can name them; not decoded.
    case gif, avif, bmp, tiff, jpeg2000, jpegXL, pdf, ico

    /// Whether Seer decodes this format.
    public var isDecodable: Bool { self == .png || self == .jpeg || self == .heic || self == .webp }

    /// A human name for messages.
    public var displayName: String {
        switch self {
        case .png: "PNG"
        case .jpeg: "JPEG"
        case .gif: "GIF"
        case .webp: "WebP"
        case .heic: "HEIC"
        case .avif: "AVIF"
        case .bmp: "BMP"
        case .tiff: "TIFF"
        case .jpeg2000: "JPEG 2000"
        case .jpegXL: "JPEG XL"
        case .pdf: "PDF"
        case .ico: "ICO"
        }
    }

    /// The format the bytes start with, or `nil` when they match no known image signature.
    public static func sniff<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> ImageFormat? {
        let head = Array(bytes.prefix(32))
        func starts(_ sig: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + sig.count && Array(head[offset..<offset + sig.count]) == sig
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts(Array("ftyp".utf8), at: 4), head.count >= 12 {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            switch brand {
            case "avif", "avis": return .avif
            case "heic", "heix", "hevc", "hevx", "heim", "heis": return .heic
            case "mif1", "msf1":
                // The generic HEIF brands: the compatible brands (after the minor version) tell AVIF.
                let brands = stride(from: 16, to: head.count - 3, by: 4).map {
                    String(decoding: head[$0..<($0 + 4)], as: UTF8.self)
                }
                return brands.contains("avif") && !brands.contains("heic") ? .avif : .heic
            default: break
            }
        }
        if starts([0x42, 0x4D]) && head.count >= 14 { return .bmp }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20]) || starts([0xFF, 0x4F, 0xFF, 0x51]) {
            return .jpeg2000
        }
        if starts([0xFF, 0x0A]) || starts([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) { return .jpegXL }
        if starts(Array("%PDF".utf8)) { return .pdf }
        if starts([0x00, 0x00, 0x01, 0x00]) && head.count >= 6 { return .ico }
        return nil
    }
}

/// How the stored pixels must be turned to show the picture as a person sees it (EXIF tag 0x0112).
public enum Orientation: Int, Sendable, Codable, CaseIterable {
    /// As stored.
    case up = 1
    /// Mirrored left to right.
    case upMirrored = 2
    /// Rotated 180°.
    case down = 3
    /// Mirrored top to bottom.
    case downMirrored = 4
    /// Mirrored along the main diagonal (transposed).
    case leftMirrored = 5
    /// Stored rotated 90° counter-clockwise: shown after a 90° clockwise turn.
    case right = 6
    /// Mirrored along the anti-diagonal (transversed).
    case rightMirrored = 7
    /// Stored rotated 90° clockwise: shown after a 90° counter-clockwise turn.
    case left = 8

    /// Whether showing the picture swaps width and height.
    public var swapsDimensions: Bool { rawValue >= 5 }
}
