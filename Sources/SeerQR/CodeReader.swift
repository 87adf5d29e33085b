import Logging
import SeerImage
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Reads QR codes and barcodes from grey images: zbar as the decoder, with Seer's own image work
/// around it (a scale pyramid, local binarisation, inversion, and a finder-pattern locator that
/// straightens each QR code before zbar reads it).
///
/// Configure once and share: `read` may be called from any number of threads at once; each call
/// borrows a zbar scanner from a pool.
public final class CodeReader: Sendable {
    /// How hard to look.
    public enum Preset: String, Sendable, CaseIterable, Codable {
        /// One reduced level (long side 1024), the locator on it, no retries: for live scanning.
        case fast
        /// The default: the reduced level, then full detail where codes may be small, inversion,
        /// and retries on codes located but not yet read; stops when nothing is left to explain.
        case balanced
        /// Everything the balanced preset does plus more scales, binarisation windows and upscaling
        /// for tiny codes, within a larger time budget.
        case thorough

        /// The CPU time a photo may take at this preset unless the caller sets another: 60 ms (fast),
        /// 120 ms (balanced), 600 ms (thorough), set for optimised builds.
        public var defaultBudgetMilliseconds: Int {
            switch self {
            case .fast: 60
            case .balanced: 120
            case .thorough: 600
            }
        }
    }

    /// What to read and how hard.
    public struct Options: Sendable, Equatable {
        /// The symbologies to look for (every one Seer reads by default).
        public var symbologies: Set<Symbology>
        /// The effort preset.
        public var preset: Preset
        /// An upper bound on the processor time spent looking for codes in one image, in
        /// milliseconds (checked between passes and between candidate codes, and a zbar scan that
        /// would end past it, at the rate of the read's scans before it, is not begun; the calling
        /// thread's CPU time, so the result does not depend on load). Each code read adds
        /// ``timePerCodeMilliseconds`` to it.
        public var timeBudgetMilliseconds: Int
        /// The time each code adds to the budget (4 ms by default), counting the codes read or, when
        /// more, a third of the strong finder patterns seen: reading a code and looking around it
        /// costs time in proportion to what is found, so a sheet of 60 labels is read whole while a
        /// photo with nothing in it still stops at the budget.
        public var timePerCodeMilliseconds: Int = 4
        /// The passes to run instead of the preset's tables, each under the condition given (for
        /// measuring passes; `nil` runs the preset).
        public var passes: [(pass: CodePass, when: PassCondition)]?

        /// Creates options; every symbology unless given (an empty set too), and the time budget by
        /// preset (fast 60, balanced 120, thorough 600 ms).
        public init(
            symbologies: Set<Symbology> = Set(Symbology.allCases), preset: Preset = .balanced, timeBudgetMilliseconds: Int? = nil,
            passes: [(pass: CodePass, when: PassCondition)]? = nil
        ) {
            self.symbologies = symbologies.isEmpty ? Set(Symbology.allCases) : symbologies
            self.preset = preset
            self.timeBudgetMilliseconds = timeBudgetMilliseconds ?? preset.defaultBudgetMilliseconds
            self.passes = passes
        }

        /// Options are equal when they read the same way.
        public static func == (a: Options, b: Options) -> Bool {
            a.symbologies == b.symbologies && a.preset == b.preset && a.timeBudgetMilliseconds == b.timeBudgetMilliseconds
                && a.timePerCodeMilliseconds == b.timePerCodeMilliseconds
                && a.passes?.map(\.pass) == b.passes?.map(\.pass) && a.passes?.map(\.when) == b.passes?.map(\.when)
        }
    }

    /// The options this reader was made with.
    public let options: Options
    private let pool: Mutex<[ZBarScanner]>

    /// Receives the reader's diagnostics: at `.trace` level, every pass, candidate and check.
    public let logger: Logger

    /// Creates a reader.
    public init(options: Options = Options(), logger: Logger = Logger(label: "seer.codes", factory: { _ in SwiftLogNoOpLogHandler() })) {
        self.options = options
        self.logger = logger
        self.pool = Mutex([])
    }

    /// The JPEG reduction (1, 2, 4 or 8) worth decoding a photo of this size at for this preset.
    ///
    /// Codes are read at a long side of about 1100 pixels (fast and balanced), with a decoding at
    /// twice that resolution made only where codes are small or bars are seen and not yet read (the
    /// finer decoding). Thorough decodes in full. The symbologies do not change it: a photo costs
    /// the same to decode whatever is looked for.
    public static func decodeScale(width: Int, height: Int, preset: Preset, symbologies: Set<Symbology> = Set(Symbology.allCases)) -> Int {
        let side = max(width, height)
        let target = preset == .thorough ? Int.max : 1100
        var s = 1
        while s < 8 && side / s > target { s *= 2 }
        return s
    }

    private func borrow() -> ZBarScanner {
        if let s = pool.withLock({ $0.popLast() }) { return s }
        return ZBarScanner(symbologies: options.symbologies)
    }

    private func giveBack(_ s: ZBarScanner) {
        pool.withLock { $0.append(s) }
    }

    /// Reads every code in `image`. Corners come back in `image`'s pixel coordinates multiplied by
    /// (`scaleX`, `scaleY`), so a photo decoded at a reduced scale reports full-size coordinates.
    ///
    /// - Parameters:
    ///   - finer: the photo at twice `image`'s resolution, for codes too small to read in `image`;
    ///     called at most once, and only when small codes are suspected (nil: there is none).
    ///   - limitMilliseconds: CPU milliseconds this read may take at most, whatever the budget and
    ///     the codes seen allow (what a photo's own budget leaves after decoding; nil: no such limit).
    public func read(
        _ image: GrayImage, scaleX: Double = 1, scaleY: Double = 1, finer: (@Sendable () -> GrayImage?)? = nil,
        limitMilliseconds: Double? = nil
    ) -> [Symbol] {
        let scanner = borrow()
        defer { giveBack(scanner) }
        scanner.startPhoto()
        var session = ReadSession(image: image, finer: finer, scanner: scanner, options: options, logger: logger)
        if let limitMilliseconds { session.limitMilliseconds = limitMilliseconds }
        session.run()
        return session.found.map { f in
            let corners = f.corners.map { Point(x: $0.x * scaleX, y: $0.y * scaleY) }
            var decoded = f.raw.qr.map { $0.stream.text() } ?? f.raw.dataMatrix.map { $0.text() } ?? f.raw.maxiCode.map { $0.text() } ?? TextDecoding.decode(f.raw.bytes, shiftJIS: f.raw.symbology.hasFinderPatterns)
            // Code 39 Full ASCII: the text the shift pairs stand for, when every pair is defined.
            if f.raw.symbology == .code39, let text = decoded?.text, let full = LinearCheck.code39FullASCII(text) {
                decoded = (full, "us-ascii")
            }
            return Symbol(
                symbology: f.raw.symbology, bytes: f.raw.bytes, text: decoded?.text, charset: decoded?.charset,
                corners: corners, quality: f.raw.quality, isGS1: f.raw.isGS1, structuredAppend: f.raw.qr?.stream.structuredAppend ?? f.raw.dataMatrix?.structuredAppend
                    ?? f.raw.maxiCode?.structuredAppend.map { StructuredAppend(index: $0.index, count: $0.count, parity: 0) })
        }
    }
}

extension ZBarScanner: @unchecked Sendable {}  // used by one thread at a time through the pool

/// A symbol found, with its corners in the work image's coordinates (TL, TR, BR, BL).
struct FoundSymbol {
    var raw: RawSymbol
    var corners: [Point]
    /// Pixels per module (QR) or 0.
    var module: Double

    var center: Point {
        Point(x: corners.map(\.x).reduce(0, +) / 4, y: corners.map(\.y).reduce(0, +) / 4)
    }

    func contains(_ p: Point, grow: Double = 1.15) -> Bool {
        p.isInside(corners, grownBy: grow)
    }
}

