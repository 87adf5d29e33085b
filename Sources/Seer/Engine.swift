import Logging
import SeerImage
import SeerPlate
import SeerQR
import SeerStore
import SeerVerify
import Synchronization

/// The public facade: configured once, then shared freely across tasks and threads.
///
/// An engine owns everything a caller can set — how photos are decoded, which codes are read and how
/// hard, the plate reader's options and where Tesseract's language data is, verification thresholds,
/// limits on what callers may ask, the store, and the logger — and every C resource behind them (a
/// pool of zbar scanners, a pool of Tesseract engines). There is no process-wide state: two engines
/// with different configurations work side by side. Nothing in the library changes the process's
/// environment or re-executes it.
///
/// Each capability lives in its own extension (decoding here; codes, plates, verification and the
/// store beside it).
public final class Engine: Sendable {
    /// Everything an engine is configured with.
    public struct Configuration: Sendable {
        /// How photos are decoded (pixel limit, colour, orientation).
        public var decode: DecodeOptions
        /// What codes to read and how hard (QR, balanced preset by default).
        public var codes: CodeReader.Options
        /// How plates are found and read.
        public var plates: PlateReader.Options
        /// The folder holding Tesseract's `eng.traineddata`; nil looks in the Debian locations
        /// (`/usr/share/tesseract-ocr/5/tessdata`, …).
        public var tessdata: String?
        /// Clone-detection thresholds for product verification.
        public var verify = VerifyConfiguration()
        /// Where plate confusion variants come from: by default the region's plate grammar
        /// (``GrammarPlateVariants``), falling back to ``ConfusionVariants`` where no format fits.
        public var plateVariants: any PlateVariantProvider = GrammarPlateVariants()
        /// Preset texts and the length limit for plate messages.
        public var messages = MessagePolicy()
        /// Bounds on what one call may ask for.
        public var limits = Limits()
        /// The store scans, registries and messages are kept in (``store()``).
        public var store: StoreLocation = .sqlite()
        /// Where diagnostics go (nothing is logged at the default level `info` in normal work).
        public var logger: Logger = Logger(label: "seer", factory: { _ in SwiftLogNoOpLogHandler() })

        /// Creates a configuration; every parameter has the documented default.
        public init(
            decode: DecodeOptions = DecodeOptions(), codes: CodeReader.Options = CodeReader.Options(),
            plates: PlateReader.Options = PlateReader.Options(), tessdata: String? = nil
        ) {
            self.decode = decode
            self.codes = codes
            self.plates = plates
            self.tessdata = tessdata
        }
    }

    /// Bounds on what one call may ask for; requests past them are refused with a typed error.
    public struct Limits: Sendable, Equatable {
        /// Longest payload verified or saved, in UTF-8 bytes. Default 4096.
        public var payloadBytes: Int = 4096
        /// Longest history search text, in characters. Default 256.
        public var searchCharacters: Int = 256
        /// Largest history page. Default 1000.
        public var pageSize: Int = 1000
        /// Longest reason given with a counterfeit report, in characters. Default 500.
        public var reportReasonCharacters: Int = 500
        /// CPU milliseconds of the calling thread one photo's scan may take in all
        /// (``scanPhoto(contentsOf:reading:region:includeImage:minimumPlateConfidence:)``): reading
        /// the codes and the plates gets what decoding left, each within its own budget, so that no
        /// photo costs more whatever it shows. Default 2500, which leaves a `seer scan` process of
        /// one photo its start-up within 3 s; a photo takes 10–300 ms. nil for no such limit.
        public var photoCPUMilliseconds: Double? = 2500

        /// The defaults.
        public init() {}
    }

    /// Where an engine's store is.
    public enum StoreLocation: Sendable {
        /// A SQLite file; nil for ``defaultStorePath(environment:)``.
        case sqlite(path: String? = nil)
        /// A store another module opens when the engine first needs it: a PostgreSQL database
        /// shared by any number of processes is `.opened(.postgres(url:))` with module `SeerPostgres`.
        case opened(StoreOpener)
        /// A store the caller made (another implementation of ``SeerStore``, or one shared between engines).
        case provided(any SeerStore)

        /// The location `--db` (or `SEER_DB`) names: a URL one of `schemes` takes (with `SeerPostgres`,
        /// `[.postgres]` takes `postgres://` URLs), else a SQLite file's path (nil for the default file).
        /// A `postgres://` URL no scheme takes is refused when the store is opened.
        public static func named(_ text: String?, schemes: [StoreScheme] = []) -> StoreLocation {
            guard let text, !text.isEmpty else { return .sqlite() }
            if let scheme = schemes.first(where: { $0.accepts(text) }) { return .opened(scheme.opener(text)) }
            return .sqlite(path: text)
        }
    }

    /// The configuration this engine was made with.
    public let configuration: Configuration
    /// The code reader (holds a pool of zbar scanners, one per worker).
    let codeReader: CodeReader
    /// The plate reader, made on first use (it starts Tesseract).
    let plates = Mutex<PlateReader?>(nil)
    /// The store, opened on first use.
    let opened = Mutex<(any SeerStore)?>(nil)

    /// Creates an engine. Nothing is loaded or opened until it is needed.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.codeReader = CodeReader(options: configuration.codes, logger: configuration.logger)
    }

    /// The engine's logger.
    public var logger: Logger { configuration.logger }

    /// Decodes the photo at `path` as configured (format from the bytes, orientation applied).
    public func decode(contentsOf path: String) throws -> DecodedImage {
        try ImageDecoder.decode(contentsOf: path, options: configuration.decode)
    }

    /// Decodes a photo held in memory as configured.
    public func decode(_ bytes: [UInt8]) throws -> DecodedImage {
        try ImageDecoder.decode(bytes, options: configuration.decode)
    }
}
