import SeerImage
import SeerQR

/// The public facade: configured once, then shared freely across tasks and threads.
///
/// Each capability lives in its own extension (decoding here; codes, plates and verification
/// beside it). Anything inside that holds a C handle which is not thread-safe is pooled.
public final class Engine: Sendable {
    /// Everything an engine is configured with.
    public struct Configuration: Sendable {
        /// How photos are decoded (pixel limit, colour, orientation).
        public var decode: DecodeOptions
        /// Clone-detection thresholds for product verification.
        public var verify = VerifyConfiguration()
        /// Where plate confusion variants come from: by default the region's plate grammar
        /// (``GrammarPlateVariants``), falling back to ``ConfusionVariants`` where no format fits.
        public var plateVariants: any PlateVariantProvider = GrammarPlateVariants()
        /// Preset texts and the length limit for plate messages.
        public var messages = MessagePolicy()
        /// What codes to read and how hard (QR, balanced preset by default).
        public var codes: CodeReader.Options

        /// Creates a configuration; every parameter has the documented default.
        public init(decode: DecodeOptions = DecodeOptions(), codes: CodeReader.Options = CodeReader.Options()) {
            self.decode = decode
            self.codes = codes
        }
    }

    /// The configuration this engine was made with.
    public let configuration: Configuration
    /// The code reader (holds a pool of zbar scanners, one per worker).
    let codeReader: CodeReader

    /// Creates an engine.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.codeReader = CodeReader(options: configuration.codes)
    }

    /// Decodes the photo at `path` as configured (format from the bytes, orientation applied).
    public func decode(contentsOf path: String) throws -> DecodedImage {
        try ImageDecoder.decode(contentsOf: path, options: configuration.decode)
    }

    /// Decodes a photo held in memory as configured.
    public func decode(_ bytes: [UInt8]) throws -> DecodedImage {
        try ImageDecoder.decode(bytes, options: configuration.decode)
    }
}
