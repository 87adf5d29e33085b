#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one decode may spend. Carried in ``DecodeOptions/budget`` from the caller (the `Engine`'s
/// `Configuration.decode`) down to each format's decoder, and checked before the work it bounds, so
/// a hostile file is refused by the budget whatever trick it plays, not by a check for that trick.
public struct DecodeBudget: Sendable, Equatable {
    /// Bytes read: a file larger than this is refused before it is read. Default 512 MiB.
    public var bytes: Int
    /// Pixels, width × height as stored, from the header, before any image-sized allocation.
    /// Default 100 megapixels.
    public var pixels: Int
    /// Bytes of image memory one decode may hold at once: the decoder's own buffers (libpng rows,
    /// libheif planes, libwebp output, libjpeg's progressive coefficients) and the images Seer
    /// returns, estimated from the header before any of it is allocated (an upper estimate: see
    /// ``ImageDecoder/estimatedMemory(_:progressive:options:)``). Default 1.5 GiB, which every
    /// image within the default pixel limit fits.
    public var memory: Int
    /// CPU seconds the decoding thread may spend, checked every few rows where the decoder lets
    /// Seer look (JPEG, PNG); over it the decode stops as `tooLarge`. HEIC stops between coded
    /// pictures (a grid's tiles); WebP cannot be interrupted, its work is bounded by the pixel and
    /// memory checks. `nil` for no limit.
    /// Default 2.5 s, the photo's whole budget in a scan (a 100-megapixel baseline JPEG decodes in
    /// about 1 s on a 2-core build machine).
    public var cpuSeconds: Double?
    /// The one decoder buffer that outgrows the image it gives: libjpeg keeps a progressive JPEG's
    /// coefficients (2 bytes each, every component's) until its last scan, whatever is asked for.
    /// Those, the grey image and the file's bytes when they are held in memory may together take at
    /// most this many times the bytes of the image the file holds (width × height × its components)
    /// plus 24 MiB; a file over it is refused as `tooLarge` from its header. Progressive 4:2:0 and
    /// 4:2:2 colour always fit; 4:4:4 colour and grey up to about 15–25 megapixels (less the larger
    /// the file). `nil` for no such limit. Default 2.
    public var progressiveMemoryPerImageByte: Int?
    /// Pixels of a HEIC or HEIF image. Its decoding stops at the CPU budget between coded pictures
    /// (a grid's tiles), not within one, and libheif and libde265 take about 50–80 ns of CPU a
    /// pixel here, so that no image much over 40 megapixels decodes within the default budget:
    /// larger ones are refused from the header. Default 40 megapixels.
    public var heifPixels: Int

    /// Creates a budget; every parameter has the documented default.
    public init(
        bytes: Int = 512 << 20, pixels: Int = 100_000_000, memory: Int = 1536 << 20, cpuSeconds: Double? = 2.5,
        progressiveMemoryPerImageByte: Int? = 2, heifPixels: Int = 40_000_000
    ) {
        self.bytes = bytes
        self.pixels = pixels
        self.memory = memory
        self.cpuSeconds = cpuSeconds
        self.progressiveMemoryPerImageByte = progressiveMemoryPerImageByte
        self.heifPixels = heifPixels
    }
}

/// How to decode a photo.
public struct DecodeOptions: Sendable, Equatable {
    /// What the decode may spend: bytes read, pixels, memory, CPU time.
    public var budget: DecodeBudget
    /// Images with more pixels than this (width × height, as stored) are refused from the header,
    /// before any image-sized allocation: ``DecodeBudget/pixels``. Default 100 megapixels.
    public var pixelLimit: Int {
        get { budget.pixels }
        set { budget.pixels = newValue }
    }
    /// Reduce each side by this factor: 1, 2, 4 or 8. JPEG uses libjpeg-turbo's DCT scaling (a reduced
    /// image without an inverse transform at full size); PNG, HEIC and WebP are decoded in full and
    /// area-averaged.
    public var scale: Int
    /// Also produce an RGB image (for annotated output).
    public var includeRGB: Bool
    /// Turn the pixels as the EXIF orientation says, so the image is as a person sees it.
    public var applyOrientation: Bool
    /// Use libjpeg's fast integer IDCT and plain upsampling: a little faster, a little less exact.
    public var fastDCT: Bool
    /// Files larger than this many bytes are refused before they are read: ``DecodeBudget/bytes``.
    /// Default 512 MiB.
    public var byteLimit: Int {
        get { budget.bytes }
        set { budget.bytes = newValue }
    }
    /// The most work a JPEG may ask for: the blocks all its scans decode together, as a multiple of
    /// the blocks in its frame. Baseline JPEGs need 1, libjpeg's progressive script about 5; a file
    /// over the limit (a progressive "bomb" of near-empty scans) is refused as `tooLarge` before the
    /// excess work is done. Default 24.
    public var workLimit: Int
    /// Wall-clock seconds a JPEG or PNG decode may take before it is abandoned as `tooLarge`; `nil`
    /// (the default) for no limit. HEIC and WebP decoders cannot be interrupted and ignore it.
    public var timeLimit: Double?

    /// Creates options; every parameter has the documented default (the budget's are
    /// ``DecodeBudget``'s, `pixelLimit` and `byteLimit` set its pixels and bytes).
    public init(
        pixelLimit: Int? = nil, scale: Int = 1, includeRGB: Bool = false,
        applyOrientation: Bool = true, fastDCT: Bool = false, byteLimit: Int? = nil,
        workLimit: Int = 24, timeLimit: Double? = nil, budget: DecodeBudget = DecodeBudget()
    ) {
        self.budget = budget
        self.scale = scale
        self.includeRGB = includeRGB
        self.applyOrientation = applyOrientation
        self.fastDCT = fastDCT
        self.workLimit = workLimit
        self.timeLimit = timeLimit
        if let pixelLimit { self.budget.pixels = pixelLimit }
        if let byteLimit { self.budget.bytes = byteLimit }
    }
}

/// What the header of an image says.
public struct ImageInfo: Sendable, Equatable, Codable {
    /// The container format.
    public var format: ImageFormat
    /// Width of the stored pixel grid.
    public var storedWidth: Int
    /// Height of the stored pixel grid.
    public var storedHeight: Int
    /// The EXIF orientation stored with the image (`.up` when there is none).
    public var orientation: Orientation

    /// Width as a person sees the picture (after orientation).
    public var width: Int { orientation.swapsDimensions ? storedHeight : storedWidth }
    /// Height as a person sees the picture (after orientation).
    public var height: Int { orientation.swapsDimensions ? storedWidth : storedHeight }

    /// Creates an info record.
    public init(format: ImageFormat, storedWidth: Int, storedHeight: Int, orientation: Orientation) {
        self.format = format
        self.storedWidth = storedWidth
        self.storedHeight = storedHeight
        self.orientation = orientation
    }
}

/// A decoded photo: its header facts and its pixels.
public struct DecodedImage: Sendable {
    /// What the header says (full-size dimensions, stored orientation).
    public var info: ImageInfo
    /// Luminance, oriented as displayed when `applyOrientation` was set, reduced when `scale` > 1.
    public var gray: GrayImage
    /// Colour, when `includeRGB` was set; same geometry as `gray`.
    public var rgb: RGBImage?
    /// Whether `gray` and `rgb` have had the orientation applied.
    public var isOriented: Bool

    /// Full-size displayed pixels per decoded pixel, horizontally: multiply a coordinate in `gray`
    /// by this to get one in the full-size displayed picture.
    public var scaleX: Double {
        let full = isOriented ? info.width : info.storedWidth
        return gray.width == 0 ? 1 : Double(full) / Double(gray.width)
    }
    /// As `scaleX`, vertically.
    public var scaleY: Double {
        let full = isOriented ? info.height : info.storedHeight
        return gray.height == 0 ? 1 : Double(full) / Double(gray.height)
    }
}

/// Rows of a grey image decoded band by band (see ``ImageDecoder/decodeRows(contentsOf:options:_:)``).
public struct RowBand {
    /// The image's width: each row's length.
    public var width: Int
    /// The image's height: the number of rows all bands together hold.
    public var height: Int
    /// The first row of this band.
    public var firstRow: Int
    /// How many rows this band holds.
    public var rows: Int
    /// The band's pixels, row after row (`width × rows`); valid only during the call that gets them.
    public var pixels: UnsafeBufferPointer<UInt8>
}

/// Decodes PNG, JPEG, HEIC and WebP photos to luminance (and RGB), recognising the format from the bytes.
///
/// All functions are thread-safe: each call owns its own C decoder.
public enum ImageDecoder {
    /// Reads only the header: format, stored size and orientation. Cheap; does not validate pixel data.
    public static func info(of bytes: [UInt8]) throws -> ImageInfo {
        try bytes.withUnsafeBytes { try info(of: $0) }
    }

    /// The header of an image in memory, refused as `tooLarge` when it has more pixels than `pixelLimit`.
    public static func info(of bytes: [UInt8], pixelLimit: Int) throws -> ImageInfo {
        let info = try info(of: bytes)
        try checkLimit(info, DecodeOptions(pixelLimit: pixelLimit))
        return info
    }

    /// Reads only the header of bytes in memory (see ``info(of:)-([UInt8])``).
    public static func info(of raw: UnsafeRawBufferPointer) throws -> ImageInfo {
        do {
            let format = try decodableFormat(raw)
            switch format {
            case .jpeg:
                let decoder = try JPEGDecoder()
                let header = try decoder.readHeader(raw)
                return ImageInfo(
                    format: .jpeg, storedWidth: Int(header.width), storedHeight: Int(header.height),
                    orientation: Exif.jpegOrientation(raw) ?? .up)
            case .heic:
                let decoder = try HEIFDecoder(raw)
                return ImageInfo(
                    format: .heic, storedWidth: decoder.storedWidth, storedHeight: decoder.storedHeight,
                    orientation: decoder.orientation)
            case .webp:
                let decoder = try WebPDecoder(raw)
                return ImageInfo(
                    format: .webp, storedWidth: decoder.width, storedHeight: decoder.height, orientation: decoder.orientation)
            default:
                let decoder = try PNGDecoder(raw)
                let header = try decoder.readHeader()
                return ImageInfo(
                    format: .png, storedWidth: header.width, storedHeight: header.height,
                    orientation: header.orientation ?? .up)
            }
        }
    }

    /// Decodes an image held in memory.
    ///
    /// - Throws: ``ImageError`` naming what is wrong (empty, not an image, unsupported format,
    ///   truncated, corrupt, over the pixel limit, out of memory). Never returns a partial image.
    public static func decode(_ bytes: [UInt8], options: DecodeOptions = .init()) throws -> DecodedImage {
        try bytes.withUnsafeBytes { try decode(bytes: $0, options: options) }
    }

    /// Decodes an image from borrowed bytes (see ``decode(_:options:)``).
    public static func decode(bytes raw: UnsafeRawBufferPointer, options: DecodeOptions = .init()) throws -> DecodedImage {
        guard [1, 2, 4, 8].contains(options.scale) else {
            preconditionFailure("DecodeOptions.scale must be 1, 2, 4 or 8")
        }
        var decoded: DecodedImage = try {
            let format = try decodableFormat(raw)
            switch format {
            case .jpeg:
                let decoder = try JPEGDecoder(options)
                let header = try decoder.readHeader(raw)
                let info = ImageInfo(
                    format: .jpeg, storedWidth: Int(header.width), storedHeight: Int(header.height),
                    orientation: Exif.jpegOrientation(raw) ?? .up)
                try checkLimit(info, options, jpeg: JPEGFrame(header), input: raw.count)
                let (gray, rgb) = try decoder.decode(scale: options.scale, wantRGB: options.includeRGB, fastDCT: options.fastDCT)
                return DecodedImage(info: info, gray: gray, rgb: rgb, isOriented: false)
            case .heic:
                let decoder = try HEIFDecoder(raw)
                let info = ImageInfo(
                    format: .heic, storedWidth: decoder.storedWidth, storedHeight: decoder.storedHeight,
                    orientation: decoder.orientation)
                try checkLimit(info, options)
                var (gray, rgb) = try decoder.decode(wantRGB: options.includeRGB, cpuSeconds: options.budget.cpuSeconds)
                if options.scale > 1 {
                    gray = gray.downscaled(by: options.scale)
                    rgb = rgb?.downscaled(by: options.scale)
                }
                // libheif turns the pixels as the boxes say; then they are as displayed already.
                if decoder.orientationInBoxes {
                    if options.applyOrientation { return DecodedImage(info: info, gray: gray, rgb: rgb, isOriented: true) }
                    let back = info.orientation.inverse
                    gray = gray.oriented(back)
                    rgb = rgb?.oriented(back)
                }
                return DecodedImage(info: info, gray: gray, rgb: rgb, isOriented: false)
            case .webp:
                let decoder = try WebPDecoder(raw)
                let info = ImageInfo(
                    format: .webp, storedWidth: decoder.width, storedHeight: decoder.height, orientation: decoder.orientation)
                try checkLimit(info, options)
                var (gray, rgb) = try decoder.decode(wantRGB: options.includeRGB)
                if options.scale > 1 {
                    gray = gray.downscaled(by: options.scale)
                    rgb = rgb?.downscaled(by: options.scale)
                }
                return DecodedImage(info: info, gray: gray, rgb: rgb, isOriented: false)
            default:
                let decoder = try PNGDecoder(
                    raw, timeLimit: options.timeLimit, cpuLimit: options.budget.cpuSeconds, pixelLimit: options.pixelLimit)
                let header = try decoder.readHeader()
                let info = ImageInfo(
                    format: .png, storedWidth: header.width, storedHeight: header.height,
                    orientation: header.orientation ?? .up)
                try checkLimit(info, options)
                var (gray, rgb) = try decoder.decode(wantRGB: options.includeRGB)
                if options.scale > 1 {
                    gray = gray.downscaled(by: options.scale)
                    rgb = rgb?.downscaled(by: options.scale)
                }
                return DecodedImage(info: info, gray: gray, rgb: rgb, isOriented: false)
            }
        }()
        if options.applyOrientation, !decoded.isOriented { orient(&decoded) }
        return decoded
    }

    /// Reads and decodes the file at `path`. Errors carry the path as their ``ImageError/source``.
    ///
    /// A JPEG is decoded straight from the file through a small buffer, never held whole in memory;
    /// other files are read in one piece.
    public static func decode(contentsOf path: String, options: DecodeOptions = .init()) throws -> DecodedImage {
        do {
            let file = try OpenFile(path, limit: options.byteLimit)
            let head = try file.prefix(headBytes)
            if file.size > head.count, ImageFormat.sniff(head) == .jpeg {
                var decoded = try head.withUnsafeBytes { raw in
                    let decoder = try JPEGDecoder(options)
                    let header = try decoder.readHeader(fd: file.fd)
                    let info = ImageInfo(
                        format: .jpeg, storedWidth: Int(header.width), storedHeight: Int(header.height),
                        orientation: Exif.jpegOrientation(raw) ?? .up)
                    try checkLimit(info, options, jpeg: JPEGFrame(header))
                    let (gray, rgb) = try decoder.decode(
                        scale: options.scale, wantRGB: options.includeRGB, fastDCT: options.fastDCT)
                    return DecodedImage(info: info, gray: gray, rgb: rgb, isOriented: false)
                }
                if options.applyOrientation { orient(&decoded) }
                return decoded
            }
            return try decode(try wholeImage(file, head: head), options: options)
        } catch let error as ImageError {
            throw error.from(path)
        }
    }

    /// Decodes the file at `path` to grey band by band, handing each band of rows to `body` as it
    /// is decoded: memory stays a few rows, whatever the image's size, as `djpeg` streams its rows.
    ///
    /// Only a JPEG that needs no turning (stored orientation up, or `applyOrientation` off) can be
    /// decoded this way, and only to grey (`includeRGB` is ignored). For anything else this returns
    /// nil having handed over no rows: decode in full with ``decode(contentsOf:options:)``.
    ///
    /// - Returns: the header facts, when the image was decoded.
    /// - Throws: ``ImageError`` as ``decode(contentsOf:options:)`` does. An error can come after some
    ///   bands were handed over (truncated or corrupt data further on): those rows are not an image.
    public static func decodeRows(
        contentsOf path: String, options: DecodeOptions = .init(), _ body: (RowBand) throws -> Void
    ) throws -> ImageInfo? {
        guard [1, 2, 4, 8].contains(options.scale) else {
            preconditionFailure("DecodeOptions.scale must be 1, 2, 4 or 8")
        }
        do {
            let file = try OpenFile(path, limit: options.byteLimit)
            let head = try file.prefix(headBytes)
            guard ImageFormat.sniff(head) == .jpeg else { return nil }
            let orientation = head.withUnsafeBytes { Exif.jpegOrientation($0) } ?? .up
            guard orientation == .up || !options.applyOrientation else { return nil }
            let decoder = try JPEGDecoder(options)
            let header = try decoder.readHeader(fd: file.fd)
            let info = ImageInfo(
                format: .jpeg, storedWidth: Int(header.width), storedHeight: Int(header.height), orientation: orientation)
            try checkLimit(info, options, jpeg: JPEGFrame(header))
            return try decoder.decodeRows(scale: options.scale, fastDCT: options.fastDCT, body) ? info : nil
        } catch let error as ImageError {
            throw error.from(path)
        }
    }

    /// Reads the header of the file at `path` (see ``info(of:)-([UInt8])``): no pixel data is
    /// decoded, whatever the image's size. With `pixelLimit`, an image over it is refused as
    /// `tooLarge`, as decoding it would be.
    public static func info(contentsOf path: String, pixelLimit: Int? = nil) throws -> ImageInfo {
        do {
            let file = try OpenFile(path, limit: DecodeBudget().bytes)
            let head = try file.prefix(headBytes)
            let info: ImageInfo
            if file.size > head.count, ImageFormat.sniff(head) == .jpeg {
                let header = try JPEGDecoder().readHeader(fd: file.fd)
                let orientation = head.withUnsafeBytes { Exif.jpegOrientation($0) }
                info = ImageInfo(
                    format: .jpeg, storedWidth: Int(header.width), storedHeight: Int(header.height),
                    orientation: orientation ?? .up)
            } else {
                info = try Self.info(of: try wholeImage(file, head: head))
            }
            if let pixelLimit { try checkLimit(info, DecodeOptions(pixelLimit: pixelLimit)) }
            return info
        } catch let error as ImageError {
            throw error.from(path)
        }
    }

    /// The image format the file at `path` starts with, reading only its first bytes; `nil` when it
    /// is not an image or cannot be read.
    public static func sniff(contentsOf path: String) -> ImageFormat? {
        guard let head = try? OpenFile(path, limit: Int.max).prefix(32) else { return nil }
        return ImageFormat.sniff(head)
    }

    /// The bytes of a file, read with one `read` loop into one buffer.
    public static func readFile(_ path: String, limit: Int = 512 << 20) throws -> [UInt8] {
        try OpenFile(path, limit: limit).readAll()
    }

    /// The bytes of an image file, for ``decode(_:options:)`` later: the format is recognised from
    /// the first bytes before the rest is read, so a large file that is not an image (or is one
    /// Seer does not decode) costs a few bytes of reading, not its size. Only regular files are
    /// read. Errors carry the path as their ``ImageError/source``.
    public static func readImage(contentsOf path: String, limit: Int = 512 << 20) throws -> [UInt8] {
        do {
            let file = try OpenFile(path, limit: limit)
            return try wholeImage(file, head: try file.prefix(headBytes))
        } catch let error as ImageError {
            throw error.from(path)
        }
    }

    /// How many bytes are read first, to recognise the format (and for a JPEG, its EXIF block).
    private static let headBytes = 256 << 10

    /// The whole file whose first bytes are `head`, once those show a format Seer decodes.
    private static func wholeImage(_ file: OpenFile, head: [UInt8]) throws -> [UInt8] {
        guard file.size > head.count else { return head }
        _ = try head.withUnsafeBytes { try decodableFormat($0) }
        return try file.readAll()
    }

    /// Applies the stored orientation to the pixels.
    private static func orient(_ decoded: inout DecodedImage) {
        let orientation = decoded.info.orientation
        if orientation != .up {
            decoded.gray = decoded.gray.oriented(orientation)
            decoded.rgb = decoded.rgb?.oriented(orientation)
        }
        decoded.isOriented = true
    }

    private static func decodableFormat(_ raw: UnsafeRawBufferPointer) throws -> ImageFormat {
        guard !raw.isEmpty else { throw ImageError(.empty, "empty input: no bytes to decode") }
        guard let format = ImageFormat.sniff(raw) else {
            throw ImageError(.notAnImage, "not an image: the bytes match no known image format")
        }
        guard format.isDecodable else {
            throw ImageError(.unsupportedFormat, "unsupported format \(format.displayName): Seer decodes PNG, JPEG, HEIC and WebP")
        }
        return format
    }

    /// A JPEG frame's facts that bound its decode: whether it is progressive, its components, and
    /// its DCT blocks as libjpeg stores them.
    struct JPEGFrame {
        var progressive: Bool
        var components: Int
        var blocks: Int
    }

    /// Checks the header against the budget: the pixels, then the memory decoding would hold.
    /// `input` is the bytes of the file held in memory while it decodes (0 when it streams from the file).
    private static func checkLimit(_ info: ImageInfo, _ options: DecodeOptions, jpeg: JPEGFrame? = nil, input: Int = 0) throws {
        let (w, h) = (info.storedWidth, info.storedHeight)
        guard w > 0, h > 0 else { throw ImageError(.corrupt, "image has zero width or height") }
        let (pixels, overflow) = w.multipliedReportingOverflow(by: h)
        if overflow || pixels > options.pixelLimit {
            throw ImageError(
                .tooLarge,
                "image is \(w)×\(h) (\(overflow ? "over Int.max" : String(pixels)) pixels), over the limit of \(options.pixelLimit)")
        }
        if info.format == .heic, pixels > options.budget.heifPixels {
            throw ImageError(
                .tooLarge,
                "image is \(w)×\(h) (\(pixels) pixels): no larger HEIC decodes within the CPU budget, so HEIC images are decoded up to \(options.budget.heifPixels) pixels")
        }
        if let jpeg, jpeg.progressive, let factor = options.budget.progressiveMemoryPerImageByte {
            let held = jpeg.blocks * 128 + pixels + input
            let allowed = factor * pixels * max(1, jpeg.components) + (24 << 20)
            if held > allowed {
                throw ImageError(
                    .tooLarge,
                    "this \(w)×\(h) progressive JPEG keeps \((jpeg.blocks * 128) >> 20) MiB of coefficients until its last scan: with its grey image and the file, over \(factor) × the image it holds + 24 MiB (\(allowed >> 20) MiB)")
            }
        }
        let memory = estimatedMemory(info, progressive: jpeg?.progressive ?? false, options: options)
        if memory > options.budget.memory {
            throw ImageError(
                .tooLarge,
                "decoding this \(w)×\(h) \(info.format.displayName) would hold about \(memory >> 20) MiB, over the budget of \(options.budget.memory >> 20) MiB")
        }
    }

    /// An upper estimate of the image memory one decode of `info` holds at once, in bytes: the
    /// images returned (grey; colour when `includeRGB`; a second copy of each while the
    /// orientation is applied) and the decoder's own full-size buffers: libjpeg's coefficients for
    /// a progressive JPEG (2 bytes each, up to three full-resolution components), libpng's rows
    /// (up to RGBA; grey from a PNG that is not interlaced needs only one row of them, and libpng
    /// keeps two rows of up to 8 bytes a pixel) and the composited colour image, libheif's planes (up to 3 bytes a pixel) and its interleaved RGBA,
    /// libwebp's RGBA output. Reductions (`scale`) are not counted.
    public static func estimatedMemory(_ info: ImageInfo, progressive: Bool = false, options: DecodeOptions) -> Int {
        let output = (1 + (options.includeRGB ? 3 : 0)) * (options.applyOrientation && info.orientation != .up ? 2 : 1)
        let working: Int
        switch info.format {
        case .jpeg: working = progressive ? 6 : 0
        case .png: working = 4 + 3
        case .heic: working = 3 + 4
        default: working = 4
        }
        let (pixels, overflow) = info.storedWidth.multipliedReportingOverflow(by: info.storedHeight)
        let (bytes, overflow2) = pixels.multipliedReportingOverflow(by: output + working)
        // libpng keeps two rows of up to 8 bytes a pixel (16-bit RGBA), whatever the height.
        let rows = info.format == .png ? 16 * info.storedWidth : 0
        return overflow || overflow2 || bytes > Int.max - rows ? Int.max : bytes + rows
    }
}
