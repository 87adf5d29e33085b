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

        /// Creates options; every parameter has the documented default.
        public init(rowsPerPhoto: Int = 5, candidates: Int = 5, minimumScore: Double = 0.12, locateMaxSide: Int = 1600) {
            self.rowsPerPhoto = rowsPerPhoto
            self.candidates = candidates
            self.minimumScore = minimumScore
            self.locateMaxSide = locateMaxSide
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
        let rows = Locator.rows(in: work, limit: options.rowsPerPhoto)
        var readings: [(PlateReading, Double, (Double, Double, Double, Double), Double)] = []
        try pool.withReader { ocr in
            for row in rows {
                // Read at the located scale, or from the full image when it was reduced.
                var sourceRow = row
                if factor > 1 {
                    let f = Double(factor)
                    sourceRow.blobs = row.blobs.map {
                        Blob(x0: $0.x0 * factor, y0: $0.y0 * factor, x1: $0.x1 * factor + factor - 1, y1: $0.y1 * factor + factor - 1, area: $0.area, label: $0.label)
                    }
                    sourceRow.intercept = row.intercept * f
                    sourceRow.glyphHeight = row.glyphHeight * f
                }
                guard let reading = readRow(sourceRow, in: image, ocr: ocr, region: region, scaleX: scaleX, scaleY: scaleY) else { continue }
                readings.append((reading.0, reading.1, reading.2, sourceRow.glyphHeight))
            }
        }
        // Plate characters are usually the tallest text row and 5–8 long.
        let tallest = readings.map(\.3).max() ?? 1
        readings = readings.map { r in
            let n = r.0.text.count
            let lengthFactor = n >= 5 && n <= 8 ? 1.0 : n == 4 ? 0.6 : n > 8 ? 0.5 : 0.3
            return (r.0, r.1 * lengthFactor * (r.3 / tallest).squareRoot(), r.2, r.1)
        }
        readings.sort { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0.text < $1.0.text }
        var kept: [PlateReading] = []
        var boxes: [(Double, Double, Double, Double)] = []
        for (reading, _, box, score) in readings where score >= options.minimumScore {
            if boxes.contains(where: { overlapFraction($0, box) > 0.3 }) { continue }
            kept.append(reading)
            boxes.append(box)
        }
        return kept
    }

    private func overlapFraction(_ a: (Double, Double, Double, Double), _ b: (Double, Double, Double, Double)) -> Double {
        let ix = min(a.0 + a.2, b.0 + b.2) - max(a.0, b.0), iy = min(a.1 + a.3, b.1 + b.3) - max(a.1, b.1)
        guard ix > 0, iy > 0 else { return 0 }
        return ix * iy / max(1, min(a.2 * a.3, b.2 * b.3))
    }

    private func readRow(
        _ row: TextRow, in image: GrayImage, ocr: TesseractReader, region: PlateRegion?, scaleX: Double, scaleY: Double
    ) -> (PlateReading, Double, (Double, Double, Double, Double))? {
        let rect = Rectifier.rectify(image, row: row)
        let segmentations = Rectifier.segment(rect)
        let search = CandidateSearch(grammar: grammar)
        var best: (candidates: [CandidateSearch.Scored], positions: [Position], glyphs: GlyphRow)?
        for glyphs in segmentations.prefix(2) {
            let symbols = ocr.read(glyphs.image, layout: .line)
            if let dir = ProcessInfo.processInfo.environment["SEER_PLATE_DEBUG"] {
                let name = "\(dir)/row\(row.x0)_\(row.y0)_\(glyphs.glyphs.count)"
                try? PNGWriter.write(glyphs.image, to: name + "_glyphs.png")
                try? PNGWriter.write(rect.image, to: name + "_rect.png")
                FileHandle.standardError.write(Data("\(name): \(String(symbols.map(\.character)))\n".utf8))
            }
            let positions = symbols.map(Self.position)
            guard positions.count >= 2 else { continue }
            let found = search.search(positions, region: region, limit: max(options.candidates, 8))
            guard let top = found.first else { continue }
            if best == nil || top.score > best!.candidates[0].score {
                best = (found, positions, glyphs)
            }
        }
        guard let best, let top = best.candidates.first, top.text.count >= 2 else { return nil }
        let second = best.candidates.count > 1 ? best.candidates[1].score : 0
        let confidence = min(top.score, 2 * top.score * top.score / (top.score + second))

        // Characters: map each chosen character to the position it came from.
        let offset = max(0, (best.positions.count - top.text.count) / 2)
        var characters: [PlateCharacter] = []
        for (i, c) in top.text.enumerated() {
            let position = best.positions.indices.contains(i + offset) ? best.positions[i + offset] : Position(options: [])
            let alternatives = position.options.filter { $0.0 != c }.prefix(3).map {
                PlateCharacter.Alternative(character: String($0.0), score: round4($0.1))
            }
            characters.append(PlateCharacter(character: String(c), confidence: round4(top.perChar.indices.contains(i) ? top.perChar[i] : 0), alternatives: Array(alternatives)))
        }
        // Corners: the glyph extent widened to the plate around it.
        let (u0, u1, v0, v1) = best.glyphs.extent
        let g = Rectifier.glyphHeight
        let quad = [
            rect.toSource(Double(u0) - 0.35 * g, Double(v0) - 0.3 * g),
            rect.toSource(Double(u1) + 0.35 * g, Double(v0) - 0.3 * g),
            rect.toSource(Double(u1) + 0.35 * g, Double(v1) + 0.3 * g),
            rect.toSource(Double(u0) - 0.35 * g, Double(v1) + 0.3 * g),
        ].map { [round1($0.0 * scaleX), round1($0.1 * scaleY)] }
        let xs = quad.map { $0[0] }, ys = quad.map { $0[1] }
        let box = (xs.min()!, ys.min()!, xs.max()! - xs.min()!, ys.max()! - ys.min()!)
        let reading = PlateReading(
            text: top.text, confidence: round4(confidence), region: top.format?.region, grammar: top.format?.name,
            corners: quad, box: [box.0, box.1, box.2, box.3].map(round1), characters: characters,
            candidates: best.candidates.prefix(options.candidates).map {
                PlateCandidate(text: $0.text, score: round4($0.score), grammar: $0.format?.name)
            })
        return (reading, top.score, box)
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
