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
    static func rows(in image: GrayImage, limit: Int) -> (rows: [TextRow], all: [TextRow]) {
        guard image.width >= 16, image.height >= 16 else { return ([], []) }
        let table = Binarize.integral(image)
        var rows: [TextRow] = []
        let radius = max(6, min(image.width, image.height) / 50)
        let mean = Binarize.localMean(image, integral: table, radius: radius)
        for (dark, offset) in [(true, 12), (false, 12), (true, 5)] {
            let mask = Binarize.threshold(image, mean: mean, offset: offset, dark: dark)
            var labels: [Int32] = []
            let blobs = Binarize.components(mask, labels: &labels)
            let maxHeight = Double(image.height) / 3
            let glyphs = blobs.filter { b in
                let h = Double(b.height), w = Double(b.width)
                return h >= 9 && h <= maxHeight && h >= 0.9 * w && h <= 12 * w && b.fill > 0.15 && (b.fill < 0.9 || h >= 2.5 * w)
            }
            rows += group(glyphs, lightOnDark: !dark)
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
    static func group(_ glyphs: [Blob], lightOnDark: Bool) -> [TextRow] {
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
        while merged {
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
