import Foundation
import Logging
import SeerImage

/// Finds and reads licence plates in grey images. Thread-safe: share one reader; each call borrows a
/// Tesseract instance from the reader's pool.
public final class PlateReader: Sendable {
    /// How a reader works.
    public struct Options: Sendable {
        /// Candidate text rows read per photo (more finds more plates, costs time).
        public var rowsPerPhoto: Int
        /// Candidate texts kept per plate.
        public var candidates: Int
        /// Readings whose best candidate scores below this are dropped before verification (0–1).
        public var minimumScore: Double
        /// Readings whose calibrated ``PlateReading/confidence`` is below this are not returned
        /// (0–1). The default, ``defaultMinimumConfidence``, removes readings of text that is not
        /// a plate (signs, labels, screens) while keeping the plates read right (docs/plates.md).
        public var minimumConfidence: Double
        /// When set, each straightened row and each row read is written into this folder as PNG
        /// (for development; nothing is written otherwise).
        public var diagnosticImages: String?
        /// Photos whose longer side exceeds this are located on a reduced copy.
        public var locateMaxSide: Int
        /// Further candidate rows per photo found as dense bands of stroke edges (plates whose
        /// glyphs touch their frame).
        public var edgeRowsPerPhoto: Int
        /// Candidate rows read with Tesseract, the most promising by the glyph classifiers' reading.
        public var rowsRead: Int
        /// Which reading of a row the grammar search ranks.
        public var recognizer: Recognizer
        /// CPU milliseconds one photo's plate reading may take (``defaultTimeBudgetMilliseconds``);
        /// when they are spent, no further rows are located, prepared or read, and the readings
        /// of the rows read so far are returned. Zero or less: no limit.
        public var timeBudgetMilliseconds = Options.defaultTimeBudgetMilliseconds
        /// The sequence recogniser's share of a character's probabilities where it and the glyph
        /// readers read the same number of characters (``Recognizer/combined``), 0–1; with
        /// ``Recognizer/rescored``, the exponent its likelihood ratio is raised to.
        public var sequenceWeight = 0.35
        /// The sequence recogniser used by every mode but ``Recognizer/glyphs``; nil: the model
        /// shipped with Seer (``SequenceRecognizer/standard``). Another model's weights can be
        /// loaded with ``SequenceRecognizer/init(contentsOf:)``, e.g. to measure a new training run.
        public var sequenceRecognizer: SequenceRecognizer? = nil

        /// Creates options; every parameter has the documented default.
        public init(
            rowsPerPhoto: Int = 8, candidates: Int = 5, minimumScore: Double = 0.12, locateMaxSide: Int = 1600,
            edgeRowsPerPhoto: Int = 3, rowsRead: Int = 4, minimumConfidence: Double = Options.defaultMinimumConfidence,
            diagnosticImages: String? = nil, recognizer: Recognizer = .defaultRecognizer
        ) {
            self.recognizer = recognizer
            self.minimumConfidence = minimumConfidence
            self.diagnosticImages = diagnosticImages
            self.rowsPerPhoto = rowsPerPhoto
            self.candidates = candidates
            self.minimumScore = minimumScore
            self.locateMaxSide = locateMaxSide
            self.edgeRowsPerPhoto = edgeRowsPerPhoto
            self.rowsRead = rowsRead
        }

        /// The default ``minimumConfidence``.
        public static let defaultMinimumConfidence = 0.15
        /// The default ``timeBudgetMilliseconds``: a photo's plates take 40–100 ms of CPU at the
        /// median (docs/plates.md), a scene crowded with glyph-like marks (a sheet of QR codes)
        /// could take tens of seconds without a limit.
        public static let defaultTimeBudgetMilliseconds = 1500
    }

    /// How a straightened row is read (docs/plates.md, "Sequence recogniser").
    public enum Recognizer: String, Sendable, CaseIterable {
        /// Glyph by glyph: the segmenter's glyphs read by the glyph networks and Tesseract's line
        /// reading, combined per glyph.
        case glyphs
        /// The whole row at once by the sequence recogniser (CTC), no segmentation.
        case sequence
        /// Both: where the sequence recogniser reads as many characters as the segmenter found
        /// glyphs, their probabilities are averaged glyph by glyph; otherwise the reading whose
        /// best candidate scores higher is kept.
        case combined
        /// Glyph by glyph, then the row's candidate readings re-ranked by how likely the sequence
        /// recogniser finds each whole text (CTC's probability of exactly that text, over every
        /// alignment): each candidate's score times (its likelihood / the best candidate's)
        /// raised to ``Options/sequenceWeight``.
        case rescored

        /// Per region, the recogniser that read the most plates on the tune part of the photos
        /// (docs/plates.md, "Sequence recogniser"): ``combined`` for US plates, ``glyphs`` for
        /// European and Brazilian ones; with no region, each row both ways (``glyphs`` over every
        /// region's formats, ``combined`` over the US ones), the likelier reading kept.
        case automatic

        /// The recogniser used when none is given: ``automatic``. The confidence model is fitted on
        /// its readings (docs/plates.md, "Confidence").
        public static let defaultRecognizer = Recognizer.automatic

        /// The recogniser this one stands for when reading plates of `region` (nil: every region;
        /// ``automatic`` then also reads each row with ``combined`` as a US plate).
        public func resolved(for region: PlateRegion?) -> Recognizer {
            guard self == .automatic else { return self }
            return region == .us ? .combined : .glyphs
        }
    }

    /// The options in force.
    public let options: Options
    /// The grammars readings are decided with.
    public let grammar: PlateGrammar
    private let pool: TesseractPool
    /// Where the reader says what it does: located rows and timings at `debug` and `trace` level.
    let logger: Logger

    /// Creates a reader. Checks that Tesseract's language data exists (in `tessdata`, else the
    /// Debian location) and throws ``PlateError`` with code `missingLanguageData` when it does not.
    /// - Parameter logger: receives the reader's diagnostics (rows located, OCR text, ranking,
    ///   timings) at `debug` and `trace` level.
    public init(
        options: Options = Options(), grammar: PlateGrammar = .standard, tessdata: String? = nil,
        logger: Logger = Logger(label: "seer.plate")
    ) throws {
        let directory = tessdata ?? tessdataDirectory()
        self.options = options
        self.logger = logger
        self.grammar = grammar
        self.pool = TesseractPool(directory: directory)
        // Start one engine now so a missing model fails here, not on the first photo.
        try pool.withReader { _ in }
    }

    /// Reads the plates in `image`. `scaleX`/`scaleY` map `image` pixels to the full-size displayed
    /// photo (``DecodedImage/scaleX``), so corners come out in the photo's coordinates.
    /// - Parameter minimumConfidence: readings below this ``PlateReading/confidence`` are left out;
    ///   nil takes ``Options/minimumConfidence``.
    /// - Returns: plates, most trustworthy first; empty when none was found.
    /// - Parameter limitMilliseconds: CPU milliseconds this read may take at most, when less than
    ///   ``Options/timeBudgetMilliseconds`` (what a photo's own budget leaves; nil: the option).
    public func read(
        _ image: GrayImage, region: PlateRegion?, scaleX: Double = 1, scaleY: Double = 1, minimumConfidence: Double? = nil,
        limitMilliseconds: Double? = nil
    ) throws -> [PlateReading] {
        let floor = minimumConfidence ?? options.minimumConfidence
        return try findings(in: image, region: region, scaleX: scaleX, scaleY: scaleY, limit: limitMilliseconds)
            .filter { $0.reading.confidence >= floor }.map(\.reading)
    }

    /// Every reading of `image` before the confidence cut, most trustworthy first, each with the
    /// evidence its confidence was computed from (for measuring and tuning; ``read(_:region:scaleX:scaleY:minimumConfidence:)``
    /// is what applications call).
    public func findings(_ image: GrayImage, region: PlateRegion?, scaleX: Double = 1, scaleY: Double = 1) throws -> [PlateFinding] {
        try findings(in: image, region: region, scaleX: scaleX, scaleY: scaleY)
    }

    private func findings(
        in image: GrayImage, region: PlateRegion?, scaleX: Double, scaleY: Double, limit: Double? = nil
    ) throws -> [PlateFinding] {
        let start = DispatchTime.now().uptimeNanoseconds
        let allowed = min(options.timeBudgetMilliseconds > 0 ? Double(options.timeBudgetMilliseconds) : .infinity, limit ?? .infinity)
        let budget = allowed.isFinite ? PlateBudget(milliseconds: max(0, allowed)) : .unlimited
        let located = locate(image, budget: budget)
        let located_ = DispatchTime.now().uptimeNanoseconds
        let prepared = prepare(located, in: image, region: region, budget: budget)
        let reads = try readRows(prepared, located: located, in: image, region: region, budget: budget)
        if budget.exhausted {
            logger.debug("plate time budget spent", metadata: ["budget_ms": "\(options.timeBudgetMilliseconds)", "readings": "\(reads.count)"])
        }
        let found = try verify(rank(reads, in: image), in: image, scaleX: scaleX, scaleY: scaleY)
        logger.debug(
            "plates read",
            metadata: [
                "locate_ms": "\((located_ - start) / 1_000_000)", "read_ms": "\((DispatchTime.now().uptimeNanoseconds - located_) / 1_000_000)",
                "rows": "\(located.rows.count + located.edgeRows.count)", "readings": "\(found.count)",
            ])
        return found
    }

    // MARK: Stages

    /// Candidate text rows of a photo, found on a reduced copy when the photo is large.
    struct Located {
        /// Glyph rows (best first) and stroke-edge bands, in the located image's pixels.
        var rows: [TextRow]
        var edgeRows: [TextRow]
        /// Every row of two glyphs or more (upper lines of two-row plates).
        var all: [TextRow]
        /// The located image is the photo reduced by this factor.
        var factor: Int

        /// `row` in the full photo's pixels.
        func full(_ row: TextRow) -> TextRow {
            guard factor > 1 else { return row }
            var out = row
            out.blobs = row.blobs.map {
                Blob(x0: $0.x0 * factor, y0: $0.y0 * factor, x1: $0.x1 * factor + factor - 1, y1: $0.y1 * factor + factor - 1, area: $0.area, label: $0.label)
            }
            out.intercept = row.intercept * Double(factor)
            out.glyphHeight = row.glyphHeight * Double(factor)
            return out
        }
    }

    /// Stage 1, locate: glyph rows and stroke-edge bands.
    func locate(_ image: GrayImage, budget: PlateBudget = .unlimited) -> Located {
        var work = image
        var factor = 1
        while max(work.width, work.height) > options.locateMaxSide * factor {
            factor *= 2
        }
        if factor > 1 { work = image.downscaled(by: factor) }
        let located = Locator.rows(in: work, limit: options.rowsPerPhoto, budget: budget)
        let edgeRows = budget.exhausted ? [] : Locator.edgeRows(in: work, avoiding: located.rows, limit: options.edgeRowsPerPhoto)
        for row in located.rows + edgeRows {
            logger.trace("row", metadata: ["x": "\(row.x0)-\(row.x1)", "y": "\(row.y0)-\(row.y1)", "glyphs": "\(row.blobs.count)", "height": "\(row.glyphHeight)", "score": "\(row.score)"])
        }
        return Located(rows: located.rows, edgeRows: edgeRows, all: located.all, factor: factor)
    }

    /// Stage 2, prepare: every row straightened, segmented and read by the mask classifier
    /// (cheap), most promising first.
    func prepare(
        _ located: Located, in image: GrayImage, region: PlateRegion?, budget: PlateBudget = .unlimited
    ) -> [(located: TextRow, rows: PreparedRow)] {
        var prepared: [(located: TextRow, rows: PreparedRow)] = []
        for row in located.rows + located.edgeRows {
            if budget.exhausted { break }
            if let p = prepare(located.full(row), in: image, region: region, minimumGlyphs: 3) { prepared.append((located: row, rows: p)) }
        }
        let tallestPrepared = prepared.map(\.rows.row.glyphHeight).max() ?? 1
        prepared.sort { a, b in
            let ra = a.rows.quick * (a.rows.row.glyphHeight / tallestPrepared).squareRoot()
            let rb = b.rows.quick * (b.rows.row.glyphHeight / tallestPrepared).squareRoot()
            return ra != rb ? ra > rb : (a.located.x0, a.located.y0) < (b.located.x0, b.located.y0)
        }
        return prepared
    }

    /// Stage 3, read: the most promising rows read with Tesseract and the classifiers; a short
    /// row with a shorter row just above it may be the lower line of a two-row plate.
    func readRows(
        _ prepared: [(located: TextRow, rows: PreparedRow)], located: Located, in image: GrayImage, region: PlateRegion?,
        budget: PlateBudget = .unlimited
    ) throws -> [RowRead] {
        let search = CandidateSearch(grammar: grammar)
        var reads: [RowRead] = []
        try pool.withReader { ocr in
            for (row, rows) in prepared.prefix(options.rowsRead) {
                if budget.exhausted { break }
                guard var read = readRow(rows, ocr: ocr, region: region, image: image) else { continue }
                let partner = Self.upperPartner(of: row, among: located.all)
                read.neighbours = Self.neighbours(of: row, among: located.all, except: partner)
                read.stacked = Self.stackedLines(of: row, among: located.all, except: partner)
                if read.positions.count <= 5, let upper = Self.upperPartner(of: row, among: located.all),
                    let upperRows = prepare(located.full(upper), in: image, region: region, minimumGlyphs: 2),
                    let top = readRow(upperRows, ocr: ocr, region: region, image: image)
                {
                    // The upper line is a group of its own: the row break is a gap between groups.
                    let positions = top.positions + read.positions
                    let gaps = [top.positions.count - 1]
                    let found = search.search(positions, region: region, limit: max(options.candidates, 8), gaps: gaps)
                    if let best = found.first, best.format != nil, best.score > read.candidates[0].score {
                        read.candidates = found
                        read.positions = positions
                        read.gaps = gaps
                        read.quad = [top.quad[0], top.quad[1], read.quad[2], read.quad[3]]
                    }
                }
                reads.append(read)
            }
        }
        return reads
    }

    /// A row read with its place in the photo's ranking.
    struct Ranked {
        var read: RowRead
        var rank: Double
        var heightRatio: Double
        var atEdge: Bool
        var atSide: Bool
    }

    /// Stage 4, rank: plate characters are usually the tallest credible text of the photo and
    /// 5–8 long; text at the photo's top or bottom edge (date stamps, plates cut off) seldom is the
    /// plate the photo was taken of.
    func rank(_ reads: [RowRead], in image: GrayImage) -> [Ranked] {
        // Rows read with a score well below the best one (bars, grilles, badges) do not set the scale.
        let bestScore = reads.map { $0.candidates[0].score * $0.layout }.max() ?? 0
        let tallest = reads.filter { $0.candidates[0].score * $0.layout >= 0.7 * bestScore }.map(\.glyphHeight).max() ?? 1
        var ranked: [Ranked] = reads.map { r in
            let top = r.candidates[0]
            let n = top.text.count
            let lengthFactor = n >= 5 && n <= 8 ? 1.0 : n == 4 ? 0.6 : n > 8 ? 0.5 : 0.3
            let ys = r.quad.map(\.1)
            let atEdge = (ys.min() ?? 0) < 0.03 * Double(image.height) || (ys.max() ?? 0) > 0.97 * Double(image.height)
            let xs = r.quad.map(\.0)
            let atSide = (xs.min() ?? 0) < 0.01 * Double(image.width) || (xs.max() ?? 0) > 0.99 * Double(image.width)
            let heightRatio = min(1, r.glyphHeight / tallest)
            let rank = top.score * lengthFactor * (atEdge ? 0.5 : 1) * r.layout * heightRatio.squareRoot()
            logger.trace("rank", metadata: ["text": "\(top.text)", "rank": "\(rank)", "score": "\(top.score)", "layout": "\(r.layout)", "edge": "\(atEdge)", "height": "\(r.glyphHeight)/\(tallest)"])
            return Ranked(read: r, rank: rank, heightRatio: heightRatio, atEdge: atEdge, atSide: atSide)
        }
        ranked.sort { $0.rank != $1.rank ? $0.rank > $1.rank : $0.read.candidates[0].text < $1.read.candidates[0].text }
        return ranked
    }

    /// Stage 5, verify: overlapping readings give way to the better ranked one; each kept reading
    /// gets its evidence and, from it, its calibrated confidence, and, when the formats its text
    /// fits tie, what the plate shows beside the characters is looked at (``PlateCue``).
    func verify(_ ranked: [Ranked], in image: GrayImage, scaleX: Double, scaleY: Double) throws -> [PlateFinding] {
        var kept: [PlateFinding] = []
        var boxes: [(Double, Double, Double, Double)] = []
        let first = ranked.first?.rank ?? 0
        for var r in ranked where r.read.candidates[0].score >= options.minimumScore {
            var reading = makeReading(r.read, scaleX: scaleX, scaleY: scaleY)
            let box = (reading.box[0], reading.box[1], reading.box[2], reading.box[3])
            if boxes.contains(where: { overlapFraction($0, box) > 0.3 }) { continue }
            let tied = label(r.read.candidates[0], of: r.read).tied
            // At most three small Tesseract reads, and only for a reading reported: not counted
            // against the budget, so that a photo's label does not depend on the machine's speed.
            if !tied.isEmpty, let (rect, own) = r.read.straightened {
                r.read.cue = try pool.withReader { ocr in
                    PlateCue.read(rect, own, in: image, ocr: ocr, regions: Set(tied.map(\.region)))
                }
                if r.read.cue != nil { reading = makeReading(r.read, scaleX: scaleX, scaleY: scaleY) }
            }
            let evidence = Self.evidence(r, rank: kept.count, rankRatio: first > 0 ? r.rank / first : 0)
            reading.confidence = round4(Calibration.standard.confidence(evidence))
            kept.append(PlateFinding(reading: reading, evidence: evidence))
            boxes.append(box)
        }
        return kept
    }

    /// Characters of `candidate` that are not the first choice at the position they were read from.
    static func swaps(_ candidate: CandidateSearch.Scored, _ positions: [Position]) -> Int {
        zip(candidate.text, candidate.indices).filter { c, i in
            positions.indices.contains(i) && positions[i].options.first?.0 != c
        }.count
    }

    /// The glyph each character of `candidate` was read from. Positions are the glyphs
    /// themselves unless a glyph held several symbols (touching glyphs the segmenter could not
    /// cut); then the ends left out are taken evenly from both sides.
    static func glyphIndices(_ candidate: CandidateSearch.Scored, positions: Int, glyphs: Int) -> [Int] {
        if positions == glyphs { return candidate.indices }
        let offset = max(0, (glyphs - candidate.text.count) / 2)
        return (0..<candidate.text.count).map { $0 + offset }
    }

    static func evidence(_ r: Ranked, rank: Int, rankRatio: Double) -> PlateEvidence {
        let read = r.read, top = read.candidates[0]
        let second = read.candidates.count > 1 ? read.candidates[1].score : 0
        let m = read.likeness
        return PlateEvidence(
            score: top.score, runnerUp: top.score > 0 ? min(1, second / top.score) : 1, formatMatched: top.format != nil,
            formatWeight: top.format?.weight ?? 0, mixed: top.text.contains(where: \.isLetter) && top.text.contains(where: \.isNumber),
            swaps: swaps(top, read.positions),
            length: top.text.count, layout: read.layout, heightRatio: r.heightRatio, atEdge: r.atEdge, atSide: r.atSide,
            neighbours: read.neighbours, frameTop: m.frame.top, frameBottom: m.frame.bottom, frameLeft: m.frame.left,
            frameRight: m.frame.right,
            agreement: read.agreement, classifierMean: read.classifierMean, contrast: m.contrast, groundSpread: m.groundSpread,
            borderInk: m.borderInk, strayInk: m.strayInk, heightSpread: m.heightSpread, pitchSpread: m.pitchSpread, aspect: m.aspect,
            stacked: read.stacked, rank: rank, rankRatio: rankRatio)
    }

    /// The score kept by a reading that leaves out a stray stroke at an end of its row.
    static let strayEndFactor = 0.9

    /// A row read: candidates best first, the positions they came from, the plate quad in `image`.
    struct RowRead {
        var candidates: [CandidateSearch.Scored]
        var positions: [Position]
        /// The wide gaps between `positions` (``GlyphRow/gaps``; for a two-row plate, the row break).
        var gaps: [Int] = []
        /// The region the row was read for (nil: all).
        var region: PlateRegion?
        var quad: [(Double, Double)]
        var glyphHeight: Double
        /// How plate-like the glyph row's layout is, 0–1 (see ``GlyphRow/layoutPrior``).
        var layout: Double = 1
        /// The row's ground, border and regularity.
        var likeness = PlateLikeness.Measure()
        /// Share of glyphs on which Tesseract and the classifiers agree on the first choice.
        var agreement = 0.0
        /// The classifiers' mean probability for the characters of the best candidate.
        var classifierMean = 0.0
        /// Other text rows of about the same glyph height beside, above or below the row.
        var neighbours = 0
        /// Lines of about the same glyph height above or below the row (see ``PlateEvidence/stacked``).
        var stacked = 0
        /// The straightened row and the glyphs read, for looking at the plate around them.
        var straightened: (rect: RectifiedRow, row: GlyphRow)?
        /// What the plate shows beside its characters, looked for when the top reading's formats tie.
        var cue: PlateCue?
    }

    /// The row that may be the upper line of a two-row plate whose lower line is `row`.
    static func upperPartner(of row: TextRow, among all: [TextRow]) -> TextRow? {
        let h = row.glyphHeight
        var best: TextRow?
        for other in all where other.glyphHeight < 1.1 * h && other.glyphHeight > 0.45 * h {
            let gap = Double(row.y0 - other.y1)
            guard gap > -0.15 * h, gap < 0.9 * h else { continue }
            guard Double(other.x0) > Double(row.x0) - 0.5 * h, Double(other.x1) < Double(row.x1) + 0.5 * h else { continue }
            guard abs(other.slope - row.slope) < 0.08 else { continue }
            if best == nil || other.y1 > best!.y1 { best = other }
        }
        return best
    }

    /// Rows of `all` with glyphs 0.6–1.6 times as tall as `row`'s that continue its line (within
    /// three glyph heights to either side) or stand above or below it (centres within 2.5 glyph
    /// heights, spans overlapping): text in a sentence, a label or a sign, where a plate stands alone.
    static func neighbours(of row: TextRow, among all: [TextRow], except partner: TextRow?) -> Int {
        let h = row.glyphHeight
        let cy = row.intercept + row.slope * Double(row.x0 + row.x1) / 2
        func same(_ a: TextRow, _ b: TextRow) -> Bool {
            let ix = min(a.x1, b.x1) - max(a.x0, b.x0), iy = min(a.y1, b.y1) - max(a.y0, b.y0)
            return ix > 0 && iy > 0 && ix * iy * 2 > min((a.x1 - a.x0) * (a.y1 - a.y0), (b.x1 - b.x0) * (b.y1 - b.y0))
        }
        var count = 0
        for other in all where other.glyphHeight > 0.6 * h && other.glyphHeight < 1.6 * h && !same(other, row) {
            if let partner, same(other, partner) { continue }
            let ocy = other.intercept + other.slope * Double(other.x0 + other.x1) / 2
            let dy = abs(ocy - cy)
            let gap = Double(max(other.x0 - row.x1, row.x0 - other.x1))
            if dy < 0.5 * h, gap < 3 * h { count += 1 } else if dy < 2.5 * h, gap < 0 { count += 1 }
        }
        return count
    }

    /// Distinct rows of `all` stacked above or below `row` as the lines of one block of text are
    /// (see ``PlateEvidence/stacked``); a row found again in another binarisation counts once.
    static func stackedLines(of row: TextRow, among all: [TextRow], except partner: TextRow?) -> Int {
        let h = row.glyphHeight
        guard h > 0 else { return 0 }
        let cy = row.intercept + row.slope * Double(row.x0 + row.x1) / 2
        var counted: [TextRow] = []
        for other in all where other.blobs.count >= 2 && other.glyphHeight >= 0.7 * h && other.glyphHeight <= 1.45 * h {
            if Locator.overlap(other, row) > 0.3 { continue }
            if let partner, Locator.overlap(other, partner) > 0.5 { continue }
            let ocy = other.intercept + other.slope * Double(other.x0 + other.x1) / 2
            let dy = abs(ocy - cy)
            guard dy >= 0.9 * h, dy <= 3.6 * h else { continue }
            let ix = min(row.x1, other.x1) - max(row.x0, other.x0)
            guard Double(ix) >= 0.3 * Double(min(row.x1 - row.x0, other.x1 - other.x0)) else { continue }
            if counted.contains(where: { Locator.overlap($0, other) > 0.5 }) { continue }
            counted.append(other)
        }
        return counted.count
    }

    private func overlapFraction(_ a: (Double, Double, Double, Double), _ b: (Double, Double, Double, Double)) -> Double {
        let ix = min(a.0 + a.2, b.0 + b.2) - max(a.0, b.0), iy = min(a.1 + a.3, b.1 + b.3) - max(a.1, b.1)
        guard ix > 0, iy > 0 else { return 0 }
        return ix * iy / max(1, min(a.2 * a.3, b.2 * b.3))
    }

    /// A row straightened and segmented, read by the glyph classifiers (before any OCR): the
    /// segmentation they read best, and how promising that reading looks.
    struct PreparedRow {
        var row: TextRow
        var rect: RectifiedRow
        var glyphs: GlyphRow
        /// The first model's probabilities for each glyph (the mask model: the cheaper reading
        /// that ranks rows); the other models read only the rows that go to Tesseract.
        var probabilities: [[Float]]
        var quick: Double
    }

    private func prepare(_ row: TextRow, in image: GrayImage, region: PlateRegion?, minimumGlyphs: Int) -> PreparedRow? {
        let search = CandidateSearch(grammar: grammar)
        var best: PreparedRow?
        // A row found as light on dark may be the gaps between dark strokes lined up: it is also
        // read the other way round, and the better reading decides.
        for lightOnDark in row.lightOnDark ? [true, false] : [false] {
            var oriented = row
            oriented.lightOnDark = lightOnDark
            let rect = Rectifier.rectify(image, row: oriented)
            if let dir = options.diagnosticImages {
                try? PNGWriter.write(rect.image, to: "\(dir)/rect\(row.x0)_\(row.y0)\(lightOnDark ? "_inv" : "").png")
            }
            // The two best segmentations, each with its variant with recovered glyphs if any.
            var base = 0
            for glyphs in Rectifier.segment(rect, minimumGlyphs: minimumGlyphs) {
                if !glyphs.recovered { base += 1 }
                if base > 2 { break }
                let probabilities = Self.probabilities(glyphs, models: Array(GlyphClassifier.standard.prefix(1)))
                let quick = (search.search(Self.positions(probabilities), region: region, limit: 1, gaps: glyphs.gaps).first?.score ?? 0)
                    * glyphs.layoutPrior
                if best == nil || quick > best!.quick {
                    best = PreparedRow(row: oriented, rect: rect, glyphs: glyphs, probabilities: probabilities, quick: quick)
                }
            }
        }
        return best
    }

    /// Reads a prepared row with Tesseract: its line read, aligned to the glyphs and combined with
    /// the classifiers' reading glyph by glyph.
    private func readRow(_ prepared: PreparedRow, ocr: TesseractReader, region: PlateRegion?, image: GrayImage) -> RowRead? {
        let row = prepared.row, rect = prepared.rect, glyphs = prepared.glyphs
        // The models' mean: the first model's reading from preparing, the others' now.
        let models = GlyphClassifier.standard
        var probabilities = prepared.probabilities
        if models.count > 1 {
            let others = Self.probabilities(glyphs, models: Array(models.dropFirst()))
            let share = Float(models.count - 1) / Float(models.count)
            probabilities = zip(probabilities, others).map { first, rest in zip(first, rest).map { $0 * (1 - share) + $1 * share } }
        }
        let classified = Self.positions(probabilities)
        let symbols = ocr.read(glyphs.image, layout: .line)
        if let dir = options.diagnosticImages {
            let name = "\(dir)/row\(row.x0)_\(row.y0)_\(glyphs.glyphs.count)"
            try? PNGWriter.write(glyphs.image, to: name + "_glyphs.png")
            try? PNGWriter.write(rect.image, to: name + "_rect.png")
            for (i, crop) in glyphs.crops.enumerated() { try? PNGWriter.write(crop, to: name + "_g\(i).png") }
            for (i, m) in glyphs.masks.enumerated() {
                try? PNGWriter.write(GrayImage(width: m.width, height: m.height, pixels: m.bits.map { $0 != 0 ? 0 : 255 }), to: name + "_m\(i).png")
            }
        }
        logger.trace("row read", metadata: ["row": "\(row.x0),\(row.y0)", "glyphs": "\(glyphs.glyphs.count)", "ocr": "\(String(symbols.map(\.character)))"])
        // A glyph the line reader skipped is read alone, unless the classifiers are sure of it.
        let sure = classified.map { ($0.options.first?.1 ?? 0) >= 0.9 }
        var tesseract = Self.alignPerGlyph(symbols, to: glyphs, ocr: ocr, skip: sure)
        // Both readers must see text: bars of a fence or a grille look like I to the glyph
        // classifiers, but Tesseract's line model finds no characters in them.
        guard tesseract.filter({ !$0.isEmpty }).count * 2 >= tesseract.count else { return nil }
        // A second opinion: the same glyphs at another size. Tesseract's errors change with scale;
        // where both readings have the same glyphs, their scores are averaged. When Tesseract and
        // the classifiers already agree on every glyph, it cannot change the text.
        let agreed = tesseract.count == classified.count
            && zip(tesseract, classified).allSatisfy { t, c in t.count == 1 && t[0].options.first?.0 == c.options.first?.0 }
        if !agreed {
            var votes = [tesseract]
            for s in Self.voteScales {
                let image = glyphs.image
                let small = image.resized(width: max(8, Int(Double(image.width) * s)), height: max(8, Int(Double(image.height) * s)))
                let scaled = GlyphRow(
                    image: small, glyphs: glyphs.glyphs.map { (Int(Double($0.x0) * s), Int(Double($0.x1) * s)) }, extent: glyphs.extent)
                votes.append(Self.alignPerGlyph(ocr.read(small, layout: .line), to: scaled, ocr: ocr, skip: classified.map { _ in true }))
            }
            tesseract = tesseract.indices.map { g in
                let readings = votes.map { $0[g] }
                return readings.allSatisfy({ $0.count == readings[0].count })
                    ? readings[0].indices.map { i in Self.vote(readings.map { $0[i] }) } : readings[0]
            }
        }
        // The rest reads the row with one recogniser for one region's formats (all with no region).
        // Its plate-likeness is measured once, on the reading kept (``measured(_:)``).
        func finish(_ mode: Recognizer, _ region: PlateRegion?) -> (read: RowRead, own: GlyphRow)? {
            let search = CandidateSearch(grammar: grammar)
            let limit = max(options.candidates, 8)
            var positions = Self.combine(tesseract, classified, glyphs)
            if mode == .sequence || mode == .combined, let recognizer = options.sequenceRecognizer ?? SequenceRecognizer.standard {
                let sequence = recognizer.read(rect.image).positions
                if mode == .sequence {
                    positions = sequence
                } else if sequence.count == positions.count {
                    positions = zip(positions, sequence).map { Self.vote([$0, $1], weights: [1 - options.sequenceWeight, options.sequenceWeight]) }
                } else if sequence.count >= 2 {
                    let best = { (p: [Position]) in search.search(p, region: region, limit: 1).first?.score ?? 0 }
                    if best(sequence) > best(positions) { positions = sequence }
                }
            }
            guard positions.count >= 2 else { return nil }
            let gaps = positions.count == glyphs.glyphs.count ? glyphs.gaps : []
            var candidates = search.search(positions, region: region, limit: limit, gaps: gaps)
            logger.trace("row gaps", metadata: ["row": "\(row.x0),\(row.y0)", "glyphs": "\(glyphs.glyphs.count)", "positions": "\(positions.count)", "gaps": "\(glyphs.gaps)"])
            // A thin stroke hard against the first or last glyph, closer than plate characters are
            // spaced, is more likely a frame's edge or a bolt than a 1 or an I: reading without it
            // costs little.
            let stray = Set(glyphs.strayEnds + Self.unreadEnds(symbols, in: glyphs)).sorted()
            if !stray.isEmpty, positions.count == glyphs.glyphs.count, positions.count - stray.count >= 2 {
                let kept = positions.indices.filter { !stray.contains($0) }
                let keptGaps = gaps.compactMap { g in kept.firstIndex(of: g).flatMap { kept.contains(g + 1) ? $0 : nil } }
                let without = search.search(kept.map { positions[$0] }, region: region, limit: limit, gaps: keptGaps).map {
                    CandidateSearch.Scored(
                        text: $0.text, score: $0.score * Self.strayEndFactor, format: $0.format, perChar: $0.perChar,
                        indices: $0.indices.map { kept[$0] })
                }
                var seen = Set<String>()
                candidates = (candidates + without).sorted { $0.score != $1.score ? $0.score > $1.score : $0.text < $1.text }
                    .filter { seen.insert($0.text).inserted }.prefix(limit).map { $0 }
            }
            if mode == .rescored, candidates.count > 1, let recognizer = options.sequenceRecognizer ?? SequenceRecognizer.standard {
                candidates = Self.rescore(candidates, by: recognizer, columns: recognizer.columns(rect.image), weight: options.sequenceWeight)
            }
            guard let top = candidates.first, top.text.count >= 2 else { return nil }
            // The glyphs the best reading was read from (ends it leaves out are no part of the plate):
            // its corners, layout and plate-likeness are theirs.
            let used = Self.glyphIndices(top, positions: positions.count, glyphs: glyphs.glyphs.count)
            let own = positions.count == glyphs.glyphs.count ? glyphs.keeping(used) : glyphs
            // Corners: the glyph extent widened to the plate around it.
            let (u0, u1, v0, v1) = own.extent
            let g = Rectifier.glyphHeight
            let quad = [
                rect.toSource(Double(u0) - 0.35 * g, Double(v0) - 0.3 * g),
                rect.toSource(Double(u1) + 0.35 * g, Double(v0) - 0.3 * g),
                rect.toSource(Double(u1) + 0.35 * g, Double(v1) + 0.3 * g),
                rect.toSource(Double(u0) - 0.35 * g, Double(v1) + 0.3 * g),
            ]
            // Evidence for the verifier: do both readers see the same characters, and are they sure?
            let read = used.filter { tesseract.indices.contains($0) && classified.indices.contains($0) }
            let agreement = tesseract.count == classified.count && !read.isEmpty
                ? Double(read.filter { g in tesseract[g].count == 1 && tesseract[g][0].options.first?.0 == classified[g].options.first?.0 }.count)
                    / Double(read.count) : 0
            let chosen = zip(top.text, Self.glyphIndices(top, positions: positions.count, glyphs: classified.count)).map { c, g in
                classified.indices.contains(g) ? classified[g].options.first { $0.0 == c }?.1 ?? 0 : 0
            }
            let kept = RowRead(
                candidates: candidates, positions: positions, gaps: gaps, region: region, quad: quad, glyphHeight: row.glyphHeight,
                layout: own.layoutPrior, agreement: agreement, classifierMean: chosen.reduce(0, +) / Double(max(1, chosen.count)))
            return (kept, own)
        }
        func measured(_ kept: (read: RowRead, own: GlyphRow)?) -> RowRead? {
            guard var kept else { return nil }
            kept.read.likeness = PlateLikeness.measure(rect, kept.own, in: image)
            kept.read.straightened = (rect, kept.own)
            return kept.read
        }
        let mode = options.recognizer.resolved(for: region)
        // With no region, `.automatic` also reads the row as a US plate the way it does when told
        // so (the glyph path and the sequence recogniser combined, US formats only); the likelier
        // reading wins, the glyph path's on a tie. The label is still chosen among every region's
        // formats.
        let glyphRead = finish(mode, region)
        guard region == nil, options.recognizer == .automatic, var usRead = finish(.combined, .us) else { return measured(glyphRead) }
        usRead.read.region = nil
        guard let glyphRead else { return measured(usRead) }
        return measured(usRead.read.candidates[0].score > glyphRead.read.candidates[0].score ? usRead : glyphRead)
    }

    /// The format label of `candidate` (``CandidateSearch/label(_:breaks:region:)``), from the
    /// row's gaps inside the characters it was read from.
    func label(_ candidate: CandidateSearch.Scored, of read: RowRead) -> FormatLabel {
        let breaks = CandidateSearch.breaks(read.gaps, lead: candidate.indices.first ?? 0, count: candidate.text.count)
        return CandidateSearch(grammar: grammar).label(candidate.text, breaks: breaks, region: read.region).narrowed(by: read.cue)
    }

    private func makeReading(_ read: RowRead, scaleX: Double, scaleY: Double) -> PlateReading {
        let top = read.candidates[0]
        let labels = read.candidates.prefix(max(1, options.candidates)).map { label($0, of: read) }
        let second = read.candidates.count > 1 ? read.candidates[1].score : 0
        let confidence = min(top.score, 2 * top.score * top.score / (top.score + second))
        // Characters: map each chosen character to the position it came from.
        var characters: [PlateCharacter] = []
        for (i, (c, p)) in zip(top.text, top.indices).enumerated() {
            let position = read.positions.indices.contains(p) ? read.positions[p] : Position(options: [])
            let alternatives = position.options.filter { $0.0 != c }.prefix(3).map {
                PlateCharacter.Alternative(character: String($0.0), score: round4($0.1))
            }
            characters.append(PlateCharacter(
                character: String(c), confidence: round4(top.perChar.indices.contains(i) ? top.perChar[i] : 0),
                alternatives: Array(alternatives)))
        }
        let quad = read.quad.map { [round1($0.0 * scaleX), round1($0.1 * scaleY)] }
        let xs = quad.map { $0[0] }, ys = quad.map { $0[1] }
        func tied(_ label: FormatLabel) -> [String]? { label.tied.isEmpty ? nil : label.tied.map(\.name) }
        return PlateReading(
            text: top.text, confidence: round4(confidence), region: labels[0].region, grammar: labels[0].format?.name,
            formats: tied(labels[0]),
            corners: quad, box: [xs.min()!, ys.min()!, xs.max()! - xs.min()!, ys.max()! - ys.min()!].map(round1),
            characters: characters,
            candidates: zip(read.candidates.prefix(options.candidates), labels).map {
                PlateCandidate(text: $0.text, score: round4($0.score), grammar: $1.format?.name, formats: tied($1))
            })
    }

    /// Per segmented glyph, the line reader's symbols that fall on it (nearest centre), or, when
    /// the line reader skipped the glyph, the glyph read on its own.
    static func alignPerGlyph(_ symbols: [OCRSymbol], to row: GlyphRow, ocr: TesseractReader, skip: [Bool] = []) -> [[Position]] {
        guard !row.glyphs.isEmpty else { return [] }
        let owner = owners(symbols, in: row)
        var out: [[Position]] = []
        for (g, glyph) in row.glyphs.enumerated() {
            let mine = symbols.indices.filter { owner[$0] == g }
            if mine.isEmpty, skip.indices.contains(g), skip[g] {
                out.append([])
            } else if mine.isEmpty {
                let pad = max(4, row.image.height / 4)
                let x0 = max(0, glyph.x0 - pad), x1 = min(row.image.width - 1, glyph.x1 + pad)
                let crop = row.image.cropped(x: x0, y: 0, width: x1 - x0 + 1, height: row.image.height)
                out.append(ocr.read(crop, layout: .character).prefix(1).map(position))
            } else {
                out.append(mine.map { position(symbols[$0]) })
            }
        }
        return out
    }

    /// For each symbol of a line reading, the glyph of `row` whose centre is nearest its own.
    static func owners(_ symbols: [OCRSymbol], in row: GlyphRow) -> [Int] {
        symbols.map { s in
            let c = Double(s.x0 + s.x1) / 2
            return row.glyphs.indices.min { a, b in
                abs(Double(row.glyphs[a].x0 + row.glyphs[a].x1) / 2 - c) < abs(Double(row.glyphs[b].x0 + row.glyphs[b].x1) / 2 - c)
            } ?? 0
        }
    }

    /// The first or last glyph (indices) when it is a thin stroke in which the line reader,
    /// reading the whole row in context, found no character: a frame's edge, a bolt or a
    /// sticker's rim beside the plate's characters, which the glyph classifiers alone would call
    /// I or 1.
    static func unreadEnds(_ symbols: [OCRSymbol], in row: GlyphRow) -> [Int] {
        guard row.glyphs.count >= 5, row.masks.count == row.glyphs.count else { return [] }
        let read = Set(owners(symbols, in: row))
        let last = row.glyphs.count - 1
        return [0, last].filter { !read.contains($0) && Double(row.masks[$0].width) < 0.3 * Double(row.masks[$0].height) }
    }

    /// Each glyph's class probabilities from `models` (their mean).
    static func probabilities(_ row: GlyphRow, models: [GlyphClassifier]) -> [[Float]] {
        guard let first = models.first else { return [] }
        return row.masks.indices.map { g in
            var p = [Float](repeating: 0, count: first.classes.count)
            for model in models {
                for (k, v) in model.probabilities(row.masks[g], crop: row.crops.indices.contains(g) ? row.crops[g] : nil).enumerated() {
                    p[k] += v / Float(models.count)
                }
            }
            return p
        }
    }

    /// Probabilities as positions: the likeliest characters, best first.
    static func positions(_ probabilities: [[Float]]) -> [Position] {
        guard let classes = GlyphClassifier.standard.first?.classes else { return [] }
        return probabilities.map { p in
            let ranked = p.indices.sorted { p[$0] > p[$1] }.prefix(6).filter { p[$0] > 0.002 }
            return Position(options: ranked.map { (classes[$0], Double(p[$0])) })
        }
    }

    /// One position per segmented glyph from the line reader's positions and the glyph classifiers'.
    static func combine(_ tesseract: [[Position]], _ classified: [Position], _ row: GlyphRow) -> [Position] {
        guard classified.count == tesseract.count, !classified.isEmpty else {
            return tesseract.flatMap { $0 }
        }
        var out: [Position] = []
        for (g, t) in tesseract.enumerated() {
            let mine = classified[g]
            if t.count == 0 {
                out.append(mine)
            } else if t.count == 1 {
                var scores: [Character: Double] = [:]
                for (c, v) in mine.options { scores[c, default: 0] += v * (1 - tesseractWeight) }
                for (c, v) in t[0].options { scores[c, default: 0] += v * tesseractWeight }
                out.append(Position(options: scores.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { ($0.key, $0.value) }))
            } else {
                // Several symbols on one blob: touching glyphs the segmenter could not cut, when
                // the blob is as wide as that many glyphs set at the row's pitch.
                let m = row.masks[g]
                out += Double(m.width) > 0.8 * Double(m.height) && holds(t.count, glyph: g, row) ? t : [mine]
            }
        }
        return out
    }

    /// Whether glyph `g` of `row` is wide enough to be `count` glyphs side by side: the row's
    /// typical glyph width plus three quarters of its pitch for each further glyph (rows of
    /// fewer than four glyphs give no pitch to go by).
    static func holds(_ count: Int, glyph g: Int, _ row: GlyphRow) -> Bool {
        guard row.glyphs.count >= 4, row.glyphs.indices.contains(g) else { return true }
        let widths = row.glyphs.map { Double($0.x1 - $0.x0 + 1) }.sorted()
        let typical = widths[widths.count / 2]
        let centres = row.glyphs.map { Double($0.x0 + $0.x1) / 2 }
        let pitches = zip(centres.dropFirst(), centres).map { $0 - $1 }.sorted()
        let pitch = pitches[pitches.count / 2]
        let width = Double(row.glyphs[g].x1 - row.glyphs[g].x0 + 1)
        return width >= typical + 0.75 * Double(count - 1) * pitch
    }

    /// Tesseract's share of a glyph's vote; the glyph classifiers have the rest.
    static let tesseractWeight = 0.4

    /// Sizes, relative to the first reading, of the further readings that vote.
    static let voteScales = [0.7]

    /// The mean of several readings' scores for one position (weighted when `weights` are given).
    static func vote(_ readings: [Position], weights: [Double]? = nil) -> Position {
        var scores: [Character: Double] = [:]
        for (k, r) in readings.enumerated() {
            let w = weights.map { $0[k] } ?? 1 / Double(readings.count)
            for (c, p) in r.options { scores[c, default: 0] += p * w }
        }
        return Position(options: scores.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// Per-position scores from one OCR glyph. Tesseract's LSTM lists its alternatives in order
    /// but gives them no usable confidence, so they share what the top choice leaves, by rank.
    static func position(_ symbol: OCRSymbol) -> Position {
        let top = symbol.confidence
        var options: [(Character, Double)] = [(symbol.character, max(0.001, top))]
        var share = min(top * 0.8, max(1 - top, 0.05))
        for (c, _) in symbol.choices where !options.contains(where: { $0.0 == c }) {
            options.append((c, max(0.001, share)))
            share *= 0.6
        }
        return Position(options: options)
    }
}

private func round4(_ x: Double) -> Double { (x * 10000).rounded() / 10000 }
private func round1(_ x: Double) -> Double { (x * 10).rounded() / 10 }

extension PlateReader {
    /// Candidates re-ranked by the sequence recogniser: each score times (its text's CTC
    /// likelihood / the likeliest candidate's)^`weight`. A text the columns cannot spell at all
    /// counts as e⁻²⁰ times the likeliest.
    static func rescore(
        _ candidates: [CandidateSearch.Scored], by recognizer: SequenceRecognizer, columns: [[Float]], weight: Double
    ) -> [CandidateSearch.Scored] {
        guard !columns.isEmpty, weight > 0 else { return candidates }
        let likelihoods = candidates.map { recognizer.logLikelihood(of: $0.text, columns: columns) }
        guard let best = likelihoods.filter(\.isFinite).max() else { return candidates }
        return zip(candidates, likelihoods).map { candidate, l in
            var c = candidate
            c.score *= exp(weight * max(-20, (l.isFinite ? l : -.infinity) - best))
            return c
        }.sorted { $0.score != $1.score ? $0.score > $1.score : $0.text < $1.text }
    }
}
