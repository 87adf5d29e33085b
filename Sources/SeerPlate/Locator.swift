import Foundation
import SeerImage

/// A row of character-like blobs: a candidate plate line.
struct TextRow: Sendable {
    /// Glyph boxes in the located image.
    var blobs: [Blob]
    /// Centre line `y = intercept + slope * x`.
    var slope: Double
    var intercept: Double
    /// Median glyph height (measured across the row).
    var glyphHeight: Double
    /// True when the glyphs are lighter than their ground.
    var lightOnDark: Bool
    /// How plate-like the row looks (higher is better).
    var score: Double

    var x0: Int { blobs.map(\.x0).min() ?? 0 }
    var x1: Int { blobs.map(\.x1).max() ?? 0 }
    var y0: Int { blobs.map(\.y0).min() ?? 0 }
    var y1: Int { blobs.map(\.y1).max() ?? 0 }
}

/// Finds rows of character-like blobs in a grey image (classical analysis, no learning).
enum Locator {
    /// Candidate rows of three glyphs or more, best first, at most `limit`; and every row of two or
    /// more glyphs (upper halves of two-row plates are often just two letters).
    static func rows(in image: GrayImage, limit: Int, budget: PlateBudget = .unlimited) -> (rows: [TextRow], all: [TextRow]) {
        guard image.width >= 16, image.height >= 16 else { return ([], []) }
        let table = Binarize.integral(image)
        var rows: [TextRow] = []
        let radius = max(6, min(image.width, image.height) / 50)
        let mean = Binarize.localMean(image, integral: table, radius: radius)
        for (dark, offset) in [(true, 12), (false, 12), (true, 5)] {
            if budget.exhausted { break }
            let mask = Binarize.threshold(image, mean: mean, offset: offset, dark: dark)
            let blobs = Binarize.componentBoxes(mask)
            let maxHeight = Double(image.height) / 3
            let glyphs = blobs.filter { b in
                let h = Double(b.height), w = Double(b.width)
                return h >= 9 && h <= maxHeight && h >= 0.9 * w && h <= 12 * w && b.fill > 0.15 && (b.fill < 0.9 || h >= 2.5 * w)
            }
            rows += group(glyphs, lightOnDark: !dark, budget: budget)
        }
        rows.sort { $0.score != $1.score ? $0.score > $1.score : ($0.x0, $0.y0) < ($1.x0, $1.y0) }
        var kept: [TextRow] = []
        for row in rows where row.blobs.count >= 3 && !kept.contains(where: { overlap($0, row) > 0.5 }) {
            kept.append(row)
            if kept.count == limit { break }
        }
        return (kept, rows)
    }

    /// Intersection over the smaller box.
    static func overlap(_ a: TextRow, _ b: TextRow) -> Double {
        let ix = min(a.x1, b.x1) - max(a.x0, b.x0), iy = min(a.y1, b.y1) - max(a.y0, b.y0)
        guard ix > 0, iy > 0 else { return 0 }
        let areaA = (a.x1 - a.x0) * (a.y1 - a.y0), areaB = (b.x1 - b.x0) * (b.y1 - b.y0)
        return Double(ix * iy) / Double(max(1, min(areaA, areaB)))
    }

    /// Links neighbouring glyphs of similar height and centre line into rows.
    static func group(_ glyphs: [Blob], lightOnDark: Bool, budget: PlateBudget = .unlimited) -> [TextRow] {
        let sorted = glyphs.sorted { $0.x0 < $1.x0 }
        var parent = Array(0..<sorted.count)
        func find(_ i: Int) -> Int {
            var i = i
            while parent[i] != i { parent[i] = parent[parent[i]]; i = parent[i] }
            return i
        }
        for i in 0..<sorted.count {
            let a = sorted[i]
            let ha = Double(a.height)
            var links = 0
            for j in (i + 1)..<sorted.count {
                let b = sorted[j]
                let gap = Double(b.x0 - a.x1)
                if gap > 1.2 * ha { break }
                let hb = Double(b.height)
                guard max(ha, hb) / min(ha, hb) < 1.3, gap > -0.25 * ha else { continue }
                guard abs(a.cy - b.cy) < 0.3 * max(ha, hb) else { continue }
                parent[find(j)] = find(i)
                links += 1
                if links >= 2 { break }
            }
        }
        var groups: [Int: [Blob]] = [:]
        for i in 0..<sorted.count { groups[find(i), default: []].append(sorted[i]) }
        // Pieces of one line split by a wide gap (hyphens, stickers, spaces): join them when they
        // share the fitted centre line and glyph height.
        var pieces = groups.values.filter { $0.count >= 1 }.map { makeRow($0, lightOnDark: lightOnDark) }
            .sorted { ($0.x0, $0.y0) < ($1.x0, $1.y0) }
        var merged = true
        while merged && !budget.exhausted {
            merged = false
            outer: for i in pieces.indices where pieces[i].blobs.count >= 2 {
                for j in pieces.indices where j != i {
                    let a = pieces[i], b = pieces[j]
                    let h = a.glyphHeight
                    guard max(h, b.glyphHeight) / min(h, b.glyphHeight) < 1.3 else { continue }
                    let gap = Double(max(b.x0 - a.x1, a.x0 - b.x1))
                    guard gap > -0.2 * h, gap < 2.6 * h else { continue }
                    let bx = Double(b.x0 + b.x1) / 2
                    let by = b.blobs.reduce(0) { $0 + $1.cy } / Double(b.blobs.count)
                    guard abs(a.intercept + a.slope * bx - by) < 0.25 * h else { continue }
                    pieces[i] = makeRow(a.blobs + b.blobs, lightOnDark: lightOnDark)
                    pieces.remove(at: j)
                    merged = true
                    break outer
                }
            }
        }
        return pieces.filter { $0.blobs.count >= 2 && $0.blobs.count <= 14 }
    }

    static func makeRow(_ members: [Blob], lightOnDark: Bool) -> TextRow {
        let n = Double(members.count)
        let mx = members.reduce(0) { $0 + $1.cx } / n
        let my = members.reduce(0) { $0 + $1.cy } / n
        var sxx = 0.0, sxy = 0.0
        for b in members {
            sxx += (b.cx - mx) * (b.cx - mx)
            sxy += (b.cx - mx) * (b.cy - my)
        }
        var slope = sxx > 0 ? sxy / sxx : 0
        slope = max(-0.4, min(0.4, slope))
        let heights = members.map { Double($0.height) }.sorted()
        let h = heights[heights.count / 2]
        let spread = heights.reduce(0) { $0 + abs($1 - h) } / n / h
        // Plate rows: 5–8 glyphs of one height on one line.
        var score = min(n, 8) - max(0, n - 9) * 0.8
        if n < 5 { score -= (5 - n) * 1.2 }
        score -= spread * 6
        let width = Double(members.map(\.x1).max()! - members.map(\.x0).min()!)
        let aspect = width / h
        if aspect < 1.8 || aspect > 10 { score -= 3 }
        let row = TextRow(blobs: members, slope: slope, intercept: my - slope * mx, glyphHeight: h, lightOnDark: lightOnDark, score: score)
        return row
    }
}

extension Locator {
    /// Text bands found by their strokes' vertical edges, for plates whose glyphs the component
    /// pass cannot see one by one (glyphs joined to a frame or a border).
    ///
    /// Horizontal intensity steps are marked, spread sideways so that the strokes of a line of text
    /// run together, and the marked regions of text-line shape (wide, evenly filled) become rows:
    /// their extent, centre line and slope from the marks column by column, their glyph height
    /// from the marks' median height. A frame's long top and bottom edges have no horizontal
    /// steps, so they do not join the band. Rows overlapping `existing` ones are skipped.
    static func edgeRows(in image: GrayImage, avoiding existing: [TextRow], limit: Int) -> [TextRow] {
        let w = image.width, h = image.height
        guard w >= 32, h >= 32, limit > 0 else { return [] }
        // Horizontal steps, thresholded at the 90th percentile (at least 24 levels).
        var gradient = [UInt8](repeating: 0, count: w * h)
        var histogram = [Int](repeating: 0, count: 256)
        image.pixels.withUnsafeBufferPointer { p in
            gradient.withUnsafeMutableBufferPointer { g in
                for y in 0..<h {
                    let row = y * w
                    for x in 1..<(w - 1) {
                        let d = abs(Int(p[row + x + 1]) - Int(p[row + x - 1]))
                        g[row + x] = UInt8(min(255, d))
                        histogram[min(255, d)] += 1
                    }
                }
            }
        }
        var threshold = 255, count = 0
        let wanted = w * h / 10
        while threshold > 0, count + histogram[threshold] < wanted {
            count += histogram[threshold]
            threshold -= 1
        }
        threshold = max(24, threshold)
        // Text rows: where marks are dense along the row (a frame's sides give one mark a row,
        // a line of glyphs several per glyph), counted in a window of `window` pixels.
        let window = max(16, w / 12)
        var spread = [UInt8](repeating: 0, count: w * h)
        let needed = Int(Double(window) * 0.15)
        var prefix = [Int](repeating: 0, count: w + 1)
        gradient.withUnsafeBufferPointer { g in
            spread.withUnsafeMutableBufferPointer { out in
                prefix.withUnsafeMutableBufferPointer { sum in
                    let mark = UInt8(threshold)
                    for y in 0..<h {
                        let row = y * w
                        for x in 0..<w { sum[x + 1] = sum[x] + (g[row + x] >= mark ? 1 : 0) }
                        for x in 0..<w {
                            let a = max(0, x - window / 2), b = min(w, x + window / 2 + 1)
                            if sum[b] - sum[a] >= needed { out[row + x] = 1 }
                        }
                    }
                }
            }
        }
        var labels: [Int32] = []
        let blobs = Binarize.components(Mask(width: w, height: h, bits: spread), labels: &labels)
        var found: [(row: TextRow, score: Double)] = []
        for b in blobs where b.height >= 10 && b.width >= 3 * b.height && b.width <= 14 * b.height && b.height <= h / 4 {
            // Column by column: the marks' top, bottom and centre.
            var centres: [(Double, Double)] = [], heights: [Double] = []
            for x in stride(from: b.x0, through: b.x1, by: max(1, b.width / 60)) {
                var top = -1, bottom = -1
                for y in b.y0...b.y1 where labels[y * w + x] == b.label {
                    if top < 0 { top = y }
                    bottom = y
                }
                guard top >= 0 else { continue }
                centres.append((Double(x), Double(top + bottom) / 2))
                heights.append(Double(bottom - top + 1))
            }
            guard centres.count >= 8 else { continue }
            heights.sort()
            let bandHeight = heights[heights.count / 2]
            guard bandHeight >= 6 else { continue }
            let n = Double(centres.count)
            let mx = centres.reduce(0) { $0 + $1.0 } / n, my = centres.reduce(0) { $0 + $1.1 } / n
            var sxx = 0.0, sxy = 0.0
            for (x, y) in centres {
                sxx += (x - mx) * (x - mx)
                sxy += (x - mx) * (y - my)
            }
            let slope = max(-0.4, min(0.4, sxx > 0 ? sxy / sxx : 0))
            // The glyphs' height: the run of rows around the centre line (straightened by the
            // slope) where marks are at least a quarter as dense as in the densest row.
            let reachY = Int(2 * bandHeight)
            var profile = [Int](repeating: 0, count: 2 * reachY + 1)
            for x in b.x0...b.x1 {
                let yc = my + slope * (Double(x) - mx)
                for dy in -reachY...reachY {
                    let y = Int(yc.rounded()) + dy
                    if y >= 0, y < h, Int(gradient[y * w + x]) >= threshold { profile[dy + reachY] += 1 }
                }
            }
            let peak = profile.max() ?? 0
            guard peak > 0 else { continue }
            var lo = reachY, hi = reachY
            while lo > 0, profile[lo - 1] * 4 >= peak { lo -= 1 }
            while hi < 2 * reachY, profile[hi + 1] * 4 >= peak { hi += 1 }
            let glyphHeight = Double(hi - lo + 1)
            guard glyphHeight >= 9 else { continue }
            // Evenly filled at the glyph height: most columns reach most of it.
            let full = heights.filter { $0 >= 0.7 * bandHeight }.count
            let evenness = Double(full) / n
            let aspect = Double(b.width) / glyphHeight
            guard evenness > 0.5, aspect >= 2.5, aspect <= 12 else { continue }
            // Polarity: along the middle of the band, strokes are the narrower runs (a stroke is
            // thinner than the counters and gaps beside it), split at the band's mean.
            let centreLine = my + Double(lo + hi - 2 * reachY) / 2
            var darkRuns = 0, darkLength = 0, lightRuns = 0, lightLength = 0
            for dy in stride(from: -glyphHeight / 4, through: glyphHeight / 4, by: max(1, glyphHeight / 8)) {
                var values: [Int] = []
                for x in b.x0...b.x1 {
                    let y = Int(centreLine + slope * (Double(x) - mx) + dy)
                    if y >= 0, y < h { values.append(Int(image.pixels[y * w + x])) }
                }
                guard values.count > 2 else { continue }
                let mean = values.reduce(0, +) / values.count
                var start = 0
                for i in 1...values.count where i == values.count || (values[i] < mean) != (values[start] < mean) {
                    // Runs touching either end are cut off: not counted.
                    if start > 0, i < values.count {
                        if values[start] < mean { darkRuns += 1; darkLength += i - start } else { lightRuns += 1; lightLength += i - start }
                    }
                    start = i
                }
            }
            guard darkRuns > 0, lightRuns > 0 else { continue }
            let lightOnDark = Double(lightLength) / Double(lightRuns) < Double(darkLength) / Double(darkRuns)
            let centre = my + Double(lo + hi - 2 * reachY) / 2
            let box = Blob(x0: b.x0, y0: Int(centre - glyphHeight / 2), x1: b.x1, y1: Int(centre + glyphHeight / 2), area: 0, label: 0)
            let row = TextRow(
                blobs: [box], slope: slope, intercept: centre - slope * mx, glyphHeight: glyphHeight, lightOnDark: lightOnDark,
                score: evenness)
            if existing.contains(where: { overlap($0, row) > 0.5 }) { continue }
            found.append((row, evenness * min(1, aspect / 4)))
        }
        found.sort { $0.score != $1.score ? $0.score > $1.score : ($0.row.x0, $0.row.y0) < ($1.row.x0, $1.row.y0) }
        var kept: [TextRow] = []
        for (row, _) in found where !kept.contains(where: { overlap($0, row) > 0.5 }) {
            kept.append(row)
            if kept.count == limit { break }
        }
        return kept
    }
}
