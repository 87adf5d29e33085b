import SeerImage
import SeerQR

/// A photo read for codes: the report and, when asked for, the decoded colour image to annotate.
public struct CodeScan: Sendable {
    /// What was read.
    public var report: ScanReport
    /// The symbols as read (corners in displayed full-size pixels).
    public var symbols: [Symbol]
    /// The photo in colour as displayed (at the decoded scale), when `includeImage` was set.
    public var image: RGBImage?
    /// Displayed full-size pixels per pixel of `image`.
    public var imageScale: Double
}

extension Engine {
    /// Reads the codes in the photo at `path` (as configured in ``Configuration/codes``).
    /// JPEGs are decoded at the reduction the preset needs (DCT scaling), orientation applied.
    public func scanCodes(contentsOf path: String, includeImage: Bool = false) throws -> CodeScan {
        let bytes = try ImageDecoder.readFile(path, limit: configuration.decode.byteLimit)
        return try scanCodes(bytes, file: path, includeImage: includeImage)
    }

    /// Reads the codes in a photo held in memory; `file` is the name reported.
    public func scanCodes(_ bytes: [UInt8], file: String, includeImage: Bool = false) throws -> CodeScan {
        let start = ContinuousClock.now
        let info = try ImageDecoder.info(of: bytes)
        var options = configuration.decode
        options.applyOrientation = true
        options.includeRGB = includeImage
        options.scale = CodeReader.decodeScale(width: info.width, height: info.height, preset: codeReader.options.preset)
        // The fast preset takes libjpeg's fast integer IDCT: codes survive its small errors.
        if codeReader.options.preset == .fast { options.fastDCT = true }
        let decoded = try ImageDecoder.decode(bytes, options: options)
        let symbols = codeReader.read(decoded.gray, scaleX: decoded.scaleX, scaleY: decoded.scaleY)
        let d = ContinuousClock.now - start
        let ms = Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
        let report = ScanReport(file: file, info: decoded.info, symbols: symbols, milliseconds: (ms * 100).rounded() / 100)
        return CodeScan(report: report, symbols: symbols, image: decoded.rgb, imageScale: decoded.scaleX)
    }
}
