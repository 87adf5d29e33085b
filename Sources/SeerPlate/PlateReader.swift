import Foundation
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
        /// Readings scoring below this are dropped (0–1).
        public var minimumScore: Double
        /// Photos whose longer side exceeds this are located on a reduced copy.
        public var locateMaxSide: Int
        /// Further candidate rows per photo found as dense bands of stroke edges (plates whose
        /// glyphs touch their frame).
        public var edgeRowsPerPhoto: Int
        /// Candidate rows read with Tesseract, the most promising by the glyph classifiers' reading.
        public var rowsRead: Int

        /// Creates options; every parameter has the documented default.
        public init(
            rowsPerPhoto: Int = 8, candidates: Int = 5, minimumScore: Double = 0.12, locateMaxSide: Int = 1600,
            edgeRowsPerPhoto: Int = 3, rowsRead: Int = 4
        ) {
            self.rowsPerPhoto = rowsPerPhoto
            self.candidates = candidates
            self.minimumScore = minimumScore
            self.locateMaxSide = locateMaxSide
            self.edgeRowsPerPhoto = edgeRowsPerPhoto
            self.rowsRead = rowsRead
        }
    }

    /// The options in force.
    public let options: Options
    /// The grammars readings are decided with.
    public let grammar: PlateGrammar
    private let pool: TesseractPool

    /// Creates a reader. Checks that Tesseract's language data exists (`TESSDATA_PREFIX`, else the
    /// Debian location) and throws ``PlateError`` with code `missingLanguageData` when it does not.
    public init(options: Options = Options(), grammar: PlateGrammar = .standard, tessdata: String? = nil) throws {
        let directory = tessdata ?? tessdataDirectory()
        self.options = options
        self.grammar = grammar
        self.pool = TesseractPool(directory: directory)
        // Start one engine now so a missing model fails here, not on the first photo.
        try pool.withReader { _ in }
    }

    /// Reads the plates in `image`. `scaleX`/`scaleY` map `image` pixels to the full-size displayed
    /// photo (``DecodedImage/scaleX``), so corners come out in the photo's coordinates.
    /// - Returns: plates, most trustworthy first; empty when none was found.
    public func read(_ image: GrayImage, region: PlateRegion?, scaleX: Double = 1, scaleY: Double = 1) throws -> [PlateReading] {
        var work = image
        var factor = 1
        while max(work.width, work.height) > options.locateMaxSide * factor {
            factor *= 2
        }
        if factor > 1 { work = image.downscaled(by: factor) }
        let t0 = DispatchTime.now().uptimeNanoseconds
        let located = Locator.rows(in: work, limit: options.rowsPerPhoto)
        let edgeRows = Locator.edgeRows(in: work, avoiding: located.rows, limit: options.edgeRowsPerPhoto)
        let t1 = DispatchTime.now().uptimeNanoseconds
        defer {
            if Self.debugFolder != nil {
                FileHandle.standardError.write(Data("locate \((t1 - t0) / 1_000_000) ms, read \((DispatchTime.now().uptimeNanoseconds - t1) / 1_000_000) ms\n".utf8))
            }
        }
        if Self.debugFolder != nil {
            for row in located.rows + edgeRows {
                FileHandle.standardError.write(Data("row x \(row.x0)-\(row.x1) y \(row.y0)-\(row.y1) n \(row.blobs.count) h \(row.glyphHeight) score \(row.score)\n".utf8))
            }
        }
        // Read at the located scale, or from the full image when it was reduced.
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
        let search = CandidateSearch(grammar: grammar)
        var reads: [RowRead] = []
        // Every row is straightened, segmented and read by the glyph classifier first (cheap);
        // Tesseract reads only the most promising ones.
        var prepared = (located.rows + edgeRows).compactMap { row in
            prepare(full(row), in: image, region: region, minimumGlyphs: 3).map { (located: row, rows: $0) }
        }
        let tallestPrepared = prepared.map(\.rows.row.glyphHeight).max() ?? 1
        prepared.sort { a, b in
            let ra = a.rows.quick * (a.rows.row.glyphHeight / tallestPrepared).squareRoot()
            let rb = b.rows.quick * (b.rows.row.glyphHeight / tallestPrepared).squareRoot()
            return ra != rb ? ra > rb : (a.located.x0, a.located.y0) < (b.located.x0, b.located.y0)
        }
        try pool.withReader { ocr in
            for (row, rows) in prepared.prefix(options.rowsRead) {
                guard var read = readRow(rows, ocr: ocr, region: region) else { continue }
                // A two-row plate: a shorter row just above, within the same span.
                if read.positions.count <= 5, let upper = Self.upperPartner(of: row, among: located.all),
                    let upperRows = prepare(full(upper), in: image, region: region, minimumGlyphs: 2),
                    let top = readRow(upperRows, ocr: ocr, region: region)
                {
                    let positions = top.positions + read.positions
                    let found = search.search(positions, region: region, limit: max(options.candidates, 8))
                    if let best = found.first, best.format != nil, best.score > read.candidates[0].score {
                        read = RowRead(
                            candidates: found, positions: positions,
                            quad: [top.quad[0], top.quad[1], read.quad[2], read.quad[3]], glyphHeight: read.glyphHeight,
                            layout: read.layout)
                    }
                }
                reads.append(read)
            }
        }
        // Plate characters are usually the tallest text row and 5–8 long.
        // Plate characters are usually the tallest credible text: rows read with a score well
        // below the best one (bars, grilles, badges) do not set the scale.
        let bestScore = reads.map { $0.candidates[0].score * $0.layout }.max() ?? 0
        let tallest = reads.filter { $0.candidates[0].score * $0.layout >= 0.7 * bestScore }.map(\.glyphHeight).max() ?? 1
        var ranked: [(reading: PlateReading, rank: Double, score: Double, box: (Double, Double, Double, Double))] = reads.map { r in
            let reading = makeReading(r, scaleX: scaleX, scaleY: scaleY)
            let n = reading.text.count
            let lengthFactor = n >= 5 && n <= 8 ? 1.0 : n == 4 ? 0.6 : n > 8 ? 0.5 : 0.3
            let score = r.candidates[0].score
            let box = (reading.box[0], reading.box[1], reading.box[2], reading.box[3])
            // Text at the photo's top or bottom edge (a camera's date stamp, a plate cut off) is
            // seldom the plate the photo was taken of.
            let ys = r.quad.map(\.1)
            let edge = (ys.min() ?? 0) < 0.03 * Double(image.height) || (ys.max() ?? 0) > 0.97 * Double(image.height) ? 0.5 : 1.0
            let rank = score * lengthFactor * edge * r.layout * min(1, r.glyphHeight / tallest).squareRoot()
            if Self.debugFolder != nil {
                FileHandle.standardError.write(Data("rank \(reading.text) \(rank) score \(score) layout \(r.layout) edge \(edge) h \(r.glyphHeight)/\(tallest)\n".utf8))
            }
            return (reading, rank, score, box)
        }
        ranked.sort { $0.rank != $1.rank ? $0.rank > $1.rank : $0.reading.text < $1.reading.text }
        var kept: [PlateReading] = []
        var boxes: [(Double, Double, Double, Double)] = []
        for r in ranked where r.score >= options.minimumScore {
            if boxes.contains(where: { overlapFraction($0, r.box) > 0.3 }) { continue }
            kept.append(r.reading)
            boxes.append(r.box)
        }
        return kept
    }

    /// The score kept by a reading that leaves out a stray stroke at an end of its row.
    static let strayEndFactor = 0.9

    /// A row read: candidates best first, the positions they came from, the plate quad in `image`.
    struct RowRead {
        var candidates: [CandidateSearch.Scored]
        var positions: [Position]
        var quad: [(Double, Double)]
        var glyphHeight: Double
        /// How plate-like the glyph row's layout is, 0–1 (see ``GlyphRow/layoutPrior``).
        var layout: Double = 1
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
            if let dir = Self.debugFolder {
                try? PNGWriter.write(rect.image, to: "\(dir)/rect\(row.x0)_\(row.y0)\(lightOnDark ? "_inv" : "").png")
            }
            // The two best segmentations, each with its variant with recovered glyphs if any.
            var base = 0
            for glyphs in Rectifier.segment(rect, minimumGlyphs: minimumGlyphs) {
                if !glyphs.recovered { base += 1 }
                if base > 2 { break }
                let probabilities = Self.probabilities(glyphs, models: Array(GlyphClassifier.standard.prefix(1)))
                let quick = (search.search(Self.positions(probabilities), region: region, limit: 1).first?.score ?? 0) * glyphs.layoutPrior
                if best == nil || quick > best!.quick {
                    best = PreparedRow(row: oriented, rect: rect, glyphs: glyphs, probabilities: probabilities, quick: quick)
                }
            }
        }
        return best
    }

    /// Reads a prepared row with Tesseract: its line read, aligned to the glyphs and combined with
    /// the classifiers' reading glyph by glyph.
    private func readRow(_ prepared: PreparedRow, ocr: TesseractReader, region: PlateRegion?) -> RowRead? {
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
        if let dir = Self.debugFolder {
            let name = "\(dir)/row\(row.x0)_\(row.y0)_\(glyphs.glyphs.count)"
            try? PNGWriter.write(glyphs.image, to: name + "_glyphs.png")
            try? PNGWriter.write(rect.image, to: name + "_rect.png")
            for (i, crop) in glyphs.crops.enumerated() { try? PNGWriter.write(crop, to: name + "_g\(i).png") }
            for (i, m) in glyphs.masks.enumerated() {
                try? PNGWriter.write(GrayImage(width: m.width, height: m.height, pixels: m.bits.map { $0 != 0 ? 0 : 255 }), to: name + "_m\(i).png")
            }
            FileHandle.standardError.write(Data("\(name): \(String(symbols.map(\.character)))\n".utf8))
        }
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
        var positions = Self.combine(tesseract, classified, glyphs)
        guard positions.count >= 2 else { return nil }
        let search = CandidateSearch(grammar: grammar)
        let limit = max(options.candidates, 8)
        var candidates = search.search(positions, region: region, limit: limit)
        // A thin stroke hard against the first or last glyph, closer than plate characters are
        // spaced, is more likely a frame's edge or a bolt than a 1 or an I: reading without it
        // costs little.
        let stray = glyphs.strayEnds
        if !stray.isEmpty, positions.count == glyphs.glyphs.count, positions.count - stray.count >= 2 {
            let trimmed = positions.indices.filter { !stray.contains($0) }.map { positions[$0] }
            let without = search.search(trimmed, region: region, limit: limit).map {
                CandidateSearch.Scored(text: $0.text, score: $0.score * Self.strayEndFactor, format: $0.format, perChar: $0.perChar)
            }
            if let first = without.first, first.score > candidates.first?.score ?? 0 { positions = trimmed }
            var seen = Set<String>()
            candidates = (candidates + without).sorted { $0.score != $1.score ? $0.score > $1.score : $0.text < $1.text }
                .filter { seen.insert($0.text).inserted }.prefix(limit).map { $0 }
        }
        guard let top = candidates.first, top.text.count >= 2 else { return nil }
        let best = (candidates: candidates, positions: positions, glyphs: glyphs)
        // Corners: the glyph extent widened to the plate around it.
        let (u0, u1, v0, v1) = best.glyphs.extent
        let g = Rectifier.glyphHeight
        let quad = [
            rect.toSource(Double(u0) - 0.35 * g, Double(v0) - 0.3 * g),
            rect.toSource(Double(u1) + 0.35 * g, Double(v0) - 0.3 * g),
            rect.toSource(Double(u1) + 0.35 * g, Double(v1) + 0.3 * g),
            rect.toSource(Double(u0) - 0.35 * g, Double(v1) + 0.3 * g),
        ]
        return RowRead(
            candidates: best.candidates, positions: best.positions, quad: quad, glyphHeight: row.glyphHeight,
            layout: best.glyphs.layoutPrior)
    }

    private func makeReading(_ read: RowRead, scaleX: Double, scaleY: Double) -> PlateReading {
        let top = read.candidates[0]
        let second = read.candidates.count > 1 ? read.candidates[1].score : 0
        let confidence = min(top.score, 2 * top.score * top.score / (top.score + second))
        // Characters: map each chosen character to the position it came from.
        let offset = max(0, (read.positions.count - top.text.count) / 2)
        var characters: [PlateCharacter] = []
        for (i, c) in top.text.enumerated() {
            let position = read.positions.indices.contains(i + offset) ? read.positions[i + offset] : Position(options: [])
            let alternatives = position.options.filter { $0.0 != c }.prefix(3).map {
                PlateCharacter.Alternative(character: String($0.0), score: round4($0.1))
            }
            characters.append(PlateCharacter(
                character: String(c), confidence: round4(top.perChar.indices.contains(i) ? top.perChar[i] : 0),
                alternatives: Array(alternatives)))
        }
        let quad = read.quad.map { [round1($0.0 * scaleX), round1($0.1 * scaleY)] }
        let xs = quad.map { $0[0] }, ys = quad.map { $0[1] }
        return PlateReading(
            text: top.text, confidence: round4(confidence), region: top.format?.region, grammar: top.format?.name,
            corners: quad, box: [xs.min()!, ys.min()!, xs.max()! - xs.min()!, ys.max()! - ys.min()!].map(round1),
            characters: characters,
            candidates: read.candidates.prefix(options.candidates).map {
                PlateCandidate(text: $0.text, score: round4($0.score), grammar: $0.format?.name)
            })
    }

    /// Per segmented glyph, the line reader's symbols that fall on it (nearest centre), or, when
    /// the line reader skipped the glyph, the glyph read on its own.
    static func alignPerGlyph(_ symbols: [OCRSymbol], to row: GlyphRow, ocr: TesseractReader, skip: [Bool] = []) -> [[Position]] {
        guard !row.glyphs.isEmpty else { return [] }
        let owner: [Int] = symbols.map { s in
            let c = Double(s.x0 + s.x1) / 2
            return row.glyphs.indices.min { a, b in
                abs(Double(row.glyphs[a].x0 + row.glyphs[a].x1) / 2 - c) < abs(Double(row.glyphs[b].x0 + row.glyphs[b].x1) / 2 - c)
            } ?? 0
        }
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
                // Several symbols on one blob: touching glyphs the segmenter could not cut.
                let m = row.masks[g]
                out += Double(m.width) > 0.8 * Double(m.height) ? t : [mine]
            }
        }
        return out
    }

    /// Tesseract's share of a glyph's vote; the glyph classifiers have the rest.
    static let tesseractWeight = 0.4

    /// Diagnostics for development: when `SEER_PLATE_DEBUG` names a folder, each row read is
    /// written there as PNG (straightened crop and clean glyph row) and rows, OCR text and timings
    /// go to standard error.
    static let debugFolder: String? = ProcessInfo.processInfo.environment["SEER_PLATE_DEBUG"]

    /// Sizes, relative to the first reading, of the further readings that vote.
    static let voteScales = [0.7]

    /// The mean of several readings' scores for one position.
    static func vote(_ readings: [Position]) -> Position {
        var scores: [Character: Double] = [:]
        for r in readings {
            for (c, p) in r.options { scores[c, default: 0] += p / Double(readings.count) }
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
