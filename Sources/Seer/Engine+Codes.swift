import SeerImage
#if canImport(Glibc)
import Glibc
#endif
import SeerPlate
import SeerQR

/// What to read in a photo: codes, plates, or both from one decode.
public struct ScanTargets: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: Int

    /// Creates a set from its raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// QR codes and barcodes (as configured in ``Engine/Configuration/codes``).
    public static let codes = ScanTargets(rawValue: 1 << 0)
    /// Licence plates.
    public static let plates = ScanTargets(rawValue: 1 << 1)
    /// Codes and plates.
    public static let all: ScanTargets = [.codes, .plates]

    /// The words ``init(parsing:)`` takes, for messages.
    public static let vocabulary = "codes, plates, codes,plates or all"

    /// Reads what the command line's `--read` and the service's `read=` say: `codes`, `plates`,
    /// both comma-separated (`codes,plates`), or `all`; case and spaces around a word are ignored,
    /// and `code`/`plate` are taken for the plural. Nil when a word is none of these or none is given.
    public init?(parsing text: String) {
        var targets: ScanTargets = []
        for word in text.split(separator: ",", omittingEmptySubsequences: false) {
            switch word.lowercased().filter({ $0 != " " }) {
            case "codes", "code": targets.insert(.codes)
            case "plates", "plate": targets.insert(.plates)
            case "all": targets.formUnion(.all)
            default: return nil
            }
        }
        guard !targets.isEmpty else { return nil }
        self = targets
    }
}

/// A photo read for codes and/or plates: the report and, when asked for, the decoded colour image
/// to annotate.
public struct PhotoScan: Sendable {
    /// What was read (`plates` is set when plates were asked for).
    public var report: ScanReport
    /// The symbols as read (corners in displayed full-size pixels); empty when codes were not asked for.
    public var symbols: [Symbol]
    /// The plates as read, most trustworthy first (corners in displayed full-size pixels); empty when
    /// plates were not asked for.
    public var plates: [PlateReading]
    /// The photo in colour as displayed (at the decoded scale), when `includeImage` was set.
    public var image: RGBImage?
    /// Displayed full-size pixels per pixel of `image`.
    public var imageScale: Double
}

/// The result of ``Engine/scanCodes(contentsOf:includeImage:)``: a ``PhotoScan`` with codes only.
public typealias CodeScan = PhotoScan

extension Engine {
    /// Reads the codes in the photo at `path` (as configured in ``Configuration/codes``).
    /// JPEGs are decoded at the reduction the preset needs (DCT scaling), orientation applied.
    public func scanCodes(contentsOf path: String, includeImage: Bool = false) throws -> CodeScan {
        try scanPhoto(contentsOf: path, reading: .codes, includeImage: includeImage)
    }

    /// Reads the codes in a photo held in memory; `file` is the name reported.
    public func scanCodes(_ bytes: [UInt8], file: String, includeImage: Bool = false) throws -> CodeScan {
        try scanPhoto(bytes, file: file, reading: .codes, includeImage: includeImage)
    }

    /// Reads codes and/or plates in the photo at `path`, decoding it once.
    ///
    /// - Parameters:
    ///   - targets: what to read. Codes alone are read from a photo decoded at the reduction their
    ///     preset needs (``CodeReader/decodeScale(width:height:preset:)``, libjpeg's DCT scaling);
    ///     plates read best at full size, so when plates are asked for the photo is decoded in full
    ///     and the code reader gets an area-averaged reduction of the same pixels. When both are
    ///     read, a plate found inside a code that was read is dropped (the code's modules, not a plate).
    ///   - region: the region whose plate grammars decide readings, or nil for all.
    ///   - includeImage: also keep the colour image (for annotation).
    ///   - minimumPlateConfidence: plates below this confidence are left out; nil takes the
    ///     reader's ``PlateReader/Options/minimumConfidence``.
    /// - Throws: ``ImageError`` for a photo that cannot be decoded, ``PlateError`` when plates were
    ///   asked for and Tesseract cannot start.
    public func scanPhoto(
        contentsOf path: String, reading targets: ScanTargets, region: PlateRegion? = nil, includeImage: Bool = false,
        minimumPlateConfidence: Double? = nil
    ) throws -> PhotoScan {
        let start = Stopwatch()
        let bytes = try ImageDecoder.readImage(contentsOf: path, limit: configuration.decode.byteLimit)
        return try scanPhoto(
            bytes, file: path, reading: targets, region: region, includeImage: includeImage,
            minimumPlateConfidence: minimumPlateConfidence, since: start)
    }

    /// Reads codes and/or plates in a photo held in memory (see ``scanPhoto(contentsOf:reading:region:includeImage:)``);
    /// `file` is the name reported.
    public func scanPhoto(
        _ bytes: [UInt8], file: String, reading targets: ScanTargets, region: PlateRegion? = nil, includeImage: Bool = false,
        minimumPlateConfidence: Double? = nil
    ) throws -> PhotoScan {
        try scanPhoto(
            bytes, file: file, reading: targets, region: region, includeImage: includeImage,
            minimumPlateConfidence: minimumPlateConfidence, since: Stopwatch())
    }

    func scanPhoto(
        _ bytes: [UInt8], file: String, reading targets: ScanTargets, region: PlateRegion?, includeImage: Bool,
        minimumPlateConfidence: Double?, since start: Stopwatch
    ) throws -> PhotoScan {
        let info = try ImageDecoder.info(of: bytes)
        let preset = codeReader.options.preset
        let codeScale = CodeReader.decodeScale(
            width: info.width, height: info.height, preset: preset, symbologies: codeReader.options.symbologies)
        var options = configuration.decode
        options.applyOrientation = true
        options.includeRGB = includeImage
        // Only JPEG decodes at a reduced scale for less work (libjpeg's scaled IDCT); the other
        // formats decode in full and are reduced after. For them the full image is kept, so the
        // finer level the code reader may ask for is a reduction of it, not a second decode.
        let reducesWhileDecoding = info.format == .jpeg
        if targets.contains(.plates) || !reducesWhileDecoding {
            options.scale = 1
        } else {
            options.scale = codeScale
            // The fast preset takes libjpeg's fast integer IDCT: codes survive its small errors.
            if preset == .fast { options.fastDCT = true }
        }
        let decoded = try ImageDecoder.decode(bytes, options: options)
        let decodedAfter = start.milliseconds
        let decodedAfterCPU = start.cpuMilliseconds

        // What the photo's own budget leaves for reading, after decoding and what was read before.
        let photoLimit = configuration.limits.photoCPUMilliseconds
        func left() -> Double? { photoLimit.map { max(0, $0 - start.cpuMilliseconds) } }
        var symbols: [Symbol] = []
        if targets.contains(.codes) {
            if options.scale == codeScale {
                // Codes too small for the reduced decoding are read from one at twice the resolution.
                var finer: (@Sendable () -> GrayImage?)?
                if codeScale > 1 {
                    var finerOptions = options
                    finerOptions.scale = codeScale / 2
                    finerOptions.includeRGB = false
                    let chosen = finerOptions
                    finer = { try? ImageDecoder.decode(bytes, options: chosen).gray }
                }
                symbols = codeReader.read(
                    decoded.gray, scaleX: decoded.scaleX, scaleY: decoded.scaleY, finer: finer, limitMilliseconds: left())
            } else {
                // Decoded in full (for the plates, or a format that does not reduce while decoding):
                // the codes get the reduction their preset works at, and the finer one from the same
                // pixels. Each reduced pixel averages a codeScale×codeScale block, so coordinates
                // scale by it exactly.
                let factor = codeScale / options.scale
                let full = decoded.gray
                var finer: (@Sendable () -> GrayImage?)?
                if factor > 1 { finer = { @Sendable () -> GrayImage? in factor > 2 ? full.downscaled(by: factor / 2) : full } }
                symbols = codeReader.read(
                    full.downscaled(by: factor),
                    scaleX: decoded.scaleX * Double(factor), scaleY: decoded.scaleY * Double(factor), finer: finer,
                    limitMilliseconds: left())
            }
        }
        var plates: [PlateReading]? = nil
        if targets.contains(.plates) {
            // A code's modules can pass for a row of glyphs: a "plate" inside a code that was read is that code.
            plates = try readPlates(in: decoded, region: region, minimumConfidence: minimumPlateConfidence, limitMilliseconds: left()).filter { plate in
                !symbols.contains { Self.center(of: plate.corners).isInside($0.corners, grownBy: 1.1) }
            }
        }
        func round2(_ x: Double) -> Double { (x * 100).rounded() / 100 }
        var report = ScanReport(
            file: file, info: decoded.info, symbols: symbols, plates: plates, milliseconds: round2(start.milliseconds))
        report.decodeMilliseconds = round2(decodedAfter)
        report.cpuMilliseconds = round2(start.cpuMilliseconds)
        report.decodeCpuMilliseconds = round2(decodedAfterCPU)
        logger.debug(
            "scanned photo",
            metadata: [
                "file": "\(file)", "size": "\(decoded.info.width)x\(decoded.info.height)", "decodeScale": "\(options.scale)",
                "codes": "\(symbols.count)", "plates": "\(plates.map { "\($0.count)" } ?? "-")", "ms": "\(report.milliseconds ?? 0)",
            ])
        return PhotoScan(report: report, symbols: symbols, plates: plates ?? [], image: decoded.rgb, imageScale: decoded.scaleX)
    }

    static func center(of corners: [[Double]]) -> Point {
        let points = corners.filter { $0.count == 2 }
        guard !points.isEmpty else { return Point(x: -1, y: -1) }
        return Point(x: points.map { $0[0] }.reduce(0, +) / Double(points.count), y: points.map { $0[1] }.reduce(0, +) / Double(points.count))
    }
}

/// Wall-clock and this thread's processor time since it was made.
struct Stopwatch {
    let wall = ContinuousClock.now
    let cpu = Stopwatch.threadCPU()

    static func threadCPU() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
    }

    /// Wall-clock milliseconds elapsed.
    var milliseconds: Double {
        let d = ContinuousClock.now - wall
        return Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }

    /// Processor milliseconds this thread spent.
    var cpuMilliseconds: Double { Self.threadCPU() - cpu }
}
