import Foundation
import SeerImage

/// A row straightened into its own image, with the way back to photo coordinates.
struct RectifiedRow {
    /// Straightened crop, glyphs dark on light, glyph height ≈ `Rectifier.glyphHeight`.
    var image: GrayImage
    /// Maps a point of `image` to the located image.
    var origin: (x: Double, y: Double)
    var along: (x: Double, y: Double)  // unit vector along the row, per output pixel scaled
    var across: (x: Double, y: Double)
    var scale: Double  // output pixels per source pixel

    func toSource(_ u: Double, _ v: Double) -> (Double, Double) {
        let su = u / scale, sv = v / scale
        return (origin.x + su * along.x + sv * across.x, origin.y + su * along.y + sv * across.y)
    }
}

/// A segmented glyph row, ready for OCR.
struct GlyphRow {
    /// White ground, only the kept glyphs in black.
    var image: GrayImage
    /// Kept glyph boxes in `image` (x0, x1).
    var glyphs: [(x0: Int, x1: Int)]
    /// Each kept glyph's ink, cropped to its box (same order as `glyphs`).
    var masks: [GlyphMask] = []
    /// The straightened grey row under each kept glyph's box (dark on light, same order).
    var crops: [GrayImage] = []
    /// Extent of the glyphs in the rectified crop: u0, u1, v0, v1.
    var extent: (Int, Int, Int, Int)
    /// Whether glyphs were recovered from empty slots of the row (`Rectifier.recoverSlots`).
    var recovered = false
    /// Each kept glyph's box in the straightened crop (same order as `glyphs`), inclusive bounds.
    var boxes: [(x0: Int, y0: Int, x1: Int, y1: Int)] = []

    /// How plate-like the row's layout is, 0–1. Plate characters are evenly spaced with at most
    /// one wider gap (a separator, a sticker or an emblem between groups), and only a few of them
    /// are plain strokes (1, I). Text with many gaps (dates, times, phone numbers) and rows of bars
    /// (fences, grilles, radiator slats) are something else.
    /// The first and last glyph (indices) when it is a thin stroke whose centre is closer to its
    /// neighbour's than 0.6 of the row's typical centre spacing: plate characters, 1 and I
    /// included, sit one pitch apart; a frame's edge or a bolt beside the last glyph does not.
    var strayEnds: [Int] {
        guard masks.count == glyphs.count, glyphs.count >= 5 else { return [] }
        let centres = glyphs.map { Double($0.x0 + $0.x1) / 2 }
        let pitches = zip(centres.dropFirst(), centres).map { $0 - $1 }.sorted()
        let pitch = pitches[pitches.count / 2]
        func stray(_ i: Int, _ neighbour: Int) -> Bool {
            Double(masks[i].width) < 0.3 * Double(masks[i].height) && abs(centres[i] - centres[neighbour]) < 0.6 * pitch
        }
        let last = glyphs.count - 1
        return (stray(0, 1) ? [0] : []) + (stray(last, last - 1) ? [last] : [])
    }

    /// The row with only the glyphs at `indices` (a reading that leaves out a stray end), its
    /// extent theirs; the row itself when `indices` is empty or it has no boxes to go by.
    func keeping(_ indices: [Int]) -> GlyphRow {
        let keep = indices.filter { glyphs.indices.contains($0) }.sorted()
        guard !keep.isEmpty, keep.count < glyphs.count, boxes.count == glyphs.count, masks.count == glyphs.count,
            crops.count == glyphs.count
        else { return self }
        var out = self
        out.glyphs = keep.map { glyphs[$0] }
        out.masks = keep.map { masks[$0] }
        out.crops = keep.map { crops[$0] }
        out.boxes = keep.map { boxes[$0] }
        out.extent = (out.boxes.map(\.x0).min()!, out.boxes.map(\.x1).max()!, out.boxes.map(\.y0).min()!, out.boxes.map(\.y1).max()!)
        return out
    }

    /// The row's wide gaps, each as the index of the glyph before it: where the spacing of two
    /// neighbouring glyphs' centres exceeds 1.35 times the row's typical spacing (a separator, an
    /// emblem or a space between groups). Plates have at most two (French `AB-123-CD`, German
    /// `M AB 1234`); empty in rows of fewer than five glyphs, or with no such gap or more than two.
    var gaps: [Int] {
        guard glyphs.count >= 5 else { return [] }
        let centres = glyphs.map { Double($0.x0 + $0.x1) / 2 }
        let spacings = zip(centres.dropFirst(), centres).map { $0 - $1 }
        let typical = spacings.sorted()[spacings.count / 2]
        let wide = spacings.indices.filter { spacings[$0] > 1.35 * typical }
        return wide.count <= 2 ? wide : []
    }

    var layoutPrior: Double {
        guard masks.count == glyphs.count, masks.count >= 2 else { return 1 }
        let height = Double(masks.map(\.height).sorted()[masks.count / 2])
        var wide = 0
        for i in 1..<glyphs.count where Double(glyphs[i].x0 - glyphs[i - 1].x1) > 0.9 * height { wide += 1 }
        let bars = masks.filter { Double($0.width) < 0.3 * Double($0.height) }.count
        var prior = pow(0.5, Double(max(0, wide - 1)))
        if bars * 2 > masks.count { prior *= 0.4 }
        return prior
    }
}

enum Rectifier {
    static let glyphHeight = 40.0

    /// Straightens `row` out of `image`: rotated by the row's baseline angle, scaled so glyphs are
    /// `glyphHeight` tall, `margin` glyph heights above and below the centre line.
    static func rectify(_ image: GrayImage, row: TextRow, margin: Double = 1.1) -> RectifiedRow {
        let angle = atan(row.slope)
        let along = (cos(angle), sin(angle)), across = (-sin(angle), cos(angle))
        let h = row.glyphHeight
        let scale = glyphHeight / h
        let x0 = Double(row.x0) - 0.6 * h, x1 = Double(row.x1) + 0.6 * h
        let cx = (x0 + x1) / 2, cy = row.intercept + row.slope * cx
        let halfU = (x1 - x0) / 2 / cos(angle)
        let origin = (cx - halfU * along.0 - margin * h * across.0, cy - halfU * along.1 - margin * h * across.1)
        let outW = max(8, Int(2 * halfU * scale)), outH = max(8, Int(2 * margin * h * scale))
        var pixels = [UInt8](repeating: 0, count: outW * outH)
        image.pixels.withUnsafeBufferPointer { src in
            let w = image.width, hgt = image.height
            for v in 0..<outH {
                let sv = Double(v) / scale
                for u in 0..<outW {
                    let su = Double(u) / scale
                    let x = origin.0 + su * along.0 + sv * across.0
                    let y = origin.1 + su * along.1 + sv * across.1
                    let xi = Int(floor(x)), yi = Int(floor(y))
                    let fx = x - Double(xi), fy = y - Double(yi)
                    func at(_ px: Int, _ py: Int) -> Double {
                        Double(src[min(hgt - 1, max(0, py)) * w + min(w - 1, max(0, px))])
                    }
                    let value = (at(xi, yi) * (1 - fx) + at(xi + 1, yi) * fx) * (1 - fy)
                        + (at(xi, yi + 1) * (1 - fx) + at(xi + 1, yi + 1) * fx) * fy
                    pixels[v * outW + u] = UInt8(max(0, min(255, value.rounded())))
                }
            }
        }
        var crop = GrayImage(width: outW, height: outH, pixels: pixels)
        if row.lightOnDark { crop = crop.inverted() }
        return RectifiedRow(image: crop, origin: origin, along: along, across: across, scale: scale)
    }

    /// Contrast-stretches `image` between its 2nd and 98th percentile.
    static func stretched(_ image: GrayImage) -> GrayImage {
        var hist = [Int](repeating: 0, count: 256)
        for p in image.pixels { hist[Int(p)] += 1 }
        let n = image.pixels.count
        var acc = 0, lo = 0, hi = 255
        for i in 0..<256 { acc += hist[i]; if acc >= n / 50 { lo = i; break } }
        acc = 0
        for i in stride(from: 255, through: 0, by: -1) { acc += hist[i]; if acc >= n / 50 { hi = i; break } }
        guard hi > lo + 8 else { return image }
        let range = Double(hi - lo)
        return GrayImage(width: image.width, height: image.height, pixels: image.pixels.map {
            UInt8(max(0, min(255, (Double(Int($0) - lo) / range * 255).rounded())))
        })
    }

    /// Segments glyphs in a rectified crop over a few binarisations; returns the candidates, best
    /// segmentation first.
    ///
    /// A segmentation in which glyph slots were found empty (see `recoverSlots`) is followed by a
    /// variant with the ink found there; `recovered` tells the variants apart.
    static func segment(_ rect: RectifiedRow, minimumGlyphs: Int = 3) -> [GlyphRow] {
        let image = stretched(rect.image)
        let w = image.width, h = image.height
        let band = image.pixels[(h / 4 * w)..<(h * 3 / 4 * w)]
        let otsu = Binarize.otsu(Array(band))
        var masks: [Mask] = []
        masks.append(Mask(width: w, height: h, bits: image.pixels.map { Int($0) < otsu ? 1 : 0 }))
        let table = Binarize.integral(image)
        masks.append(Binarize.adaptive(image, integral: table, radius: Int(glyphHeight * 0.6), offset: 10, dark: true))
        masks.append(Mask(width: w, height: h, bits: image.pixels.map { Int($0) < otsu - 25 ? 1 : 0 }))
        var results: [(rows: [GlyphRow], score: Double)] = []
        for mask in masks {
            if let found = glyphs(in: mask, image: image, minimumGlyphs: minimumGlyphs) { results.append(found) }
        }
        results = results.enumerated().sorted { $0.element.score != $1.element.score ? $0.element.score > $1.element.score : $0.offset < $1.offset }.map(\.element)
        return results.flatMap(\.rows)
    }

    /// Keeps the blobs of glyph size on the centre line and draws them onto a clean canvas.
    ///
    /// Two passes: the first finds the row of glyphs; the second looks again with the mask cut to
    /// the row's band, which frees glyphs joined to a plate frame or a border above or below them.
    static func glyphs(in mask: Mask, image: GrayImage, minimumGlyphs: Int) -> (rows: [GlyphRow], score: Double)? {
        var labels: [Int32] = []
        var mask = mask
        var found = selectRow(mask, labels: &labels, minimumGlyphs: minimumGlyphs)
        if found == nil {
            // Glyphs standing on a frame's edge or under a border join them; long horizontal runs
            // (longer than a glyph is wide) are those edges and borders.
            mask = Binarize.withoutLongRuns(mask, longerThan: Int(1.3 * glyphHeight))
            found = selectRow(mask, labels: &labels, minimumGlyphs: minimumGlyphs)
        }
        guard var (row, median) = found else { return nil }
        do {
            let top = max(0, row.map(\.y0).min()! - 1), bottom = min(mask.height - 1, row.map(\.y1).max()! + 1)
            var clipped = mask
            for i in 0..<(top * mask.width) { clipped.bits[i] = 0 }
            for i in ((bottom + 1) * mask.width)..<clipped.bits.count { clipped.bits[i] = 0 }
            var bandLabels: [Int32] = []
            if let (second, secondMedian) = selectRow(clipped, labels: &bandLabels, minimumGlyphs: minimumGlyphs, band: (top, bottom)),
                second.count > row.count
            {
                row = second
                median = secondMedian
                labels = bandLabels
            }
        }
        let (drawn, score) = draw(row, median: median, labels: labels, image: image)
        guard let recovered = recoverSlots(row, median: median, mask: mask, labels: &labels) else { return ([drawn], score) }
        var variant = draw(recovered, median: median, labels: labels, image: image).0
        variant.recovered = true
        return ([drawn, variant], score)
    }

    /// Glyphs lost to the row because they touch something (a frame's edge, an emblem, a
    /// separator): where the row's pitch leaves a slot empty (a gap of two pitches or more, or one
    /// pitch beyond either end), the ink in that slot within the glyphs' band, without columns of
    /// ink that run on above and below the band (a frame's sides), is taken as a glyph when it
    /// spans the band's height. Nil when no slot gives one.
    static func recoverSlots(_ row: [Blob], median: Double, mask: Mask, labels: inout [Int32]) -> [Blob]? {
        guard row.count >= 4 else { return nil }
        let w = mask.width, h = mask.height
        let centres = row.map(\.cx)
        let pitches = zip(centres.dropFirst(), centres).map { $0 - $1 }.sorted()
        let pitch = pitches[pitches.count / 2]
        let widths = row.map { Double($0.width) }.sorted()
        let typical = widths[widths.count / 2]
        guard pitch > typical, pitch < 2.5 * median else { return nil }
        let top = row.map(\.y0).sorted()[row.count / 2], bottom = row.map(\.y1).sorted()[row.count / 2]
        guard top >= 2, bottom < h - 2 else { return nil }
        // Slots: centre and the limits set by the glyphs either side.
        var slots: [(centre: Double, lo: Int, hi: Int)] = []
        slots.append((centres[0] - pitch, 0, row[0].x0 - 1))
        for i in 0..<(row.count - 1) {
            let d = centres[i + 1] - centres[i]
            let missing = Int((d / pitch).rounded()) - 1
            guard missing >= 1, missing <= 2 else { continue }
            for j in 1...missing {
                slots.append((centres[i] + Double(j) * d / Double(missing + 1), row[i].x1 + 1, row[i + 1].x0 - 1))
            }
        }
        slots.append((centres[row.count - 1] + pitch, row[row.count - 1].x1 + 1, w - 1))
        // A column with ink above and below the band runs through it: a frame's side.
        func runsThrough(_ x: Int) -> Bool { mask.bits[(top - 2) * w + x] != 0 && mask.bits[(bottom + 2) * w + x] != 0 }
        var label = (labels.max() ?? 0) + 1
        var added: [Blob] = []
        for slot in slots {
            let x0 = max(slot.lo, Int((slot.centre - 0.5 * pitch).rounded()))
            let x1 = min(slot.hi, Int((slot.centre + 0.5 * pitch).rounded()))
            guard x1 - x0 >= 2 else { continue }
            var blob = Blob(x0: Int.max, y0: Int.max, x1: -1, y1: -1, area: 0, label: label)
            for x in x0...x1 where !runsThrough(x) {
                for y in top...bottom where mask.bits[y * w + x] != 0 {
                    blob.area += 1
                    blob.x0 = min(blob.x0, x); blob.x1 = max(blob.x1, x)
                    blob.y0 = min(blob.y0, y); blob.y1 = max(blob.y1, y)
                }
            }
            guard blob.area > 0 else { continue }
            let bh = Double(blob.height), bw = Double(blob.width)
            guard bh >= 0.85 * Double(bottom - top + 1), bw >= 2, bw <= 1.2 * typical + 2,
                blob.fill > 0.15, blob.fill < 0.9 || bh >= 2.5 * bw
            else { continue }
            for y in blob.y0...blob.y1 {
                for x in blob.x0...blob.x1 where mask.bits[y * w + x] != 0 && !runsThrough(x) {
                    labels[y * w + x] = label
                }
            }
            added.append(blob)
            label += 1
        }
        guard !added.isEmpty else { return nil }
        return (row + added).sorted { $0.x0 < $1.x0 }
    }


    /// The longest evenly spaced run of glyph-like blobs on the centre line, and their median height.
    /// With `band` (the rows the mask was cut to), blobs cut by both of its edges are dropped.
    static func selectRow(
        _ mask: Mask, labels: inout [Int32], minimumGlyphs: Int, band: (Int, Int)? = nil
    ) -> ([Blob], Double)? {
        var blobs = Binarize.components(mask, labels: &labels)
        let mid = Double(mask.height) / 2
        let g = glyphHeight
        // Touching glyphs: a blob of glyph height but two or more glyphs wide is cut apart.
        Binarize.splitTouching(&blobs, labels: &labels, width: mask.width) { b in
            let bh = Double(b.height), bw = Double(b.width)
            return bh >= 0.6 * g && bh <= 1.45 * g && bw > 1.25 * bh && bw < 4.5 * bh && abs(b.cy - mid) < 0.35 * g
        }
        var kept = blobs.filter { b in
            let bh = Double(b.height), bw = Double(b.width)
            return bh >= 0.6 * g && bh <= 1.45 * g && bw <= 1.3 * bh && abs(b.cy - mid) < 0.35 * g
                && b.area >= 30 && b.fill > 0.12 && (b.fill < 0.9 || bh >= 2.5 * bw)
                && b.y0 > 0 && b.y1 < mask.height - 1
        }
        if let (top, bottom) = band {
            // Ink cut by an edge of the band runs on above or below it. Cut by both, or cut and
            // as thin as a line, it is a frame's or a border's stroke, not a glyph.
            kept = kept.filter { b in
                let cutTop = b.y0 <= top, cutBottom = b.y1 >= bottom
                if cutTop && cutBottom { return false }
                if (cutTop || cutBottom) && Double(b.width) < 0.2 * Double(bottom - top) { return false }
                return true
            }
        }
        guard kept.count >= minimumGlyphs else { return nil }
        let heights = kept.map { Double($0.height) }.sorted()
        let median = heights[heights.count / 2]
        kept = kept.filter { Double($0.height) > 0.78 * median && Double($0.height) < 1.22 * median }
        kept.sort { $0.x0 < $1.x0 }
        // Longest run with plausible gaps.
        var best: ArraySlice<Blob> = []
        var start = 0
        for i in 0...kept.count {
            if i == kept.count || (i > start && Double(kept[i].x0 - kept[i - 1].x1) > 1.6 * median) {
                if i - start > best.count { best = kept[start..<i] }
                start = i
            }
        }
        guard best.count >= minimumGlyphs else { return nil }
        var row = Array(best)
        // Glyphs that touch side by side in a font of narrow glyphs stay under the height-based
        // test above; in a row of four or more, a blob much wider than its neighbours is cut at
        // the row's own glyph pitch.
        if row.count >= 4 {
            let widths = row.map { Double($0.width) }.sorted()
            let typical = widths[widths.count / 2]
            let gaps = zip(row.dropFirst(), row).map { Double($0.x0 - $1.x1) }.sorted()
            let pitch = typical + max(0, gaps[gaps.count / 2])
            let wide = Set(row.filter { Double($0.width) > 1.6 * typical && Double($0.width) > 0.7 * median }.map(\.label))
            if !wide.isEmpty {
                var pieces = row
                Binarize.splitTouching(&pieces, labels: &labels, width: mask.width, pitch: pitch) { wide.contains($0.label) }
                row = pieces.filter { $0.area > 0 && Double($0.height) > 0.6 * median }.sorted { $0.x0 < $1.x0 }
            }
        }
        return (row, median)
    }

    /// Draws `row`'s glyphs (pixels of their labels) onto a clean canvas.
    static func draw(_ row: [Blob], median: Double, labels: [Int32], image: GrayImage) -> (GlyphRow, Double) {
        // Only the kept glyphs' pixels, where they stand, on a white canvas with a margin.
        let pad = Int(median * 0.4)
        let top = row.map(\.y0).min()!, bottom = row.map(\.y1).max()!
        let left = row.first!.x0, right = row.map(\.x1).max()!
        let outW = right - left + 1 + 2 * pad, outH = bottom - top + 1 + 2 * pad
        var pixels = [UInt8](repeating: 255, count: outW * outH)
        var placed: [(x0: Int, x1: Int)] = []
        var masks: [GlyphMask] = []
        var crops: [GrayImage] = []
        for b in row {
            var bits = [UInt8](repeating: 0, count: b.width * b.height)
            for y in b.y0...b.y1 {
                for x in b.x0...b.x1 where labels[y * image.width + x] == b.label {
                    bits[(y - b.y0) * b.width + x - b.x0] = 1
                    pixels[(y - top + pad) * outW + x - left + pad] = 0
                }
            }
            masks.append(GlyphMask(width: b.width, height: b.height, bits: bits))
            crops.append(image.cropped(x: b.x0, y: b.y0, width: b.width, height: b.height))
            placed.append((b.x0 - left + pad, b.x1 - left + pad))
        }
        let hs = row.map { Double($0.height) }
        let spread = hs.reduce(0) { $0 + abs($1 - median) } / Double(row.count) / median
        let n = Double(row.count)
        let score = min(n, 8) - max(0, n - 8) - max(0, 5 - n) - spread * 5
        let glyphRow = GlyphRow(
            image: GrayImage(width: outW, height: outH, pixels: pixels),
            glyphs: placed,
            masks: masks,
            crops: crops,
            extent: (left, right, top, bottom),
            boxes: row.map { ($0.x0, $0.y0, $0.x1, $0.y1) })
        return (glyphRow, score)
    }
}
