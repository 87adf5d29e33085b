import SeerImage

/// A connected blob of foreground pixels.
struct Blob: Sendable {
    var x0: Int, y0: Int, x1: Int, y1: Int  // inclusive bounds
    var area: Int
    var label: Int32

    var width: Int { x1 - x0 + 1 }
    var height: Int { y1 - y0 + 1 }
    var cx: Double { Double(x0 + x1) / 2 }
    var cy: Double { Double(y0 + y1) / 2 }
    var fill: Double { Double(area) / Double(width * height) }
}

/// A binary mask: 1 = foreground.
struct Mask: Sendable {
    var width: Int
    var height: Int
    var bits: [UInt8]
}

enum Binarize {
    /// Summed-area table of `image` (size (w+1)×(h+1)).
    static func integral(_ image: GrayImage) -> [Int32] {
        let w = image.width, h = image.height
        var table = [Int32](repeating: 0, count: (w + 1) * (h + 1))
        image.pixels.withUnsafeBufferPointer { px in
            table.withUnsafeMutableBufferPointer { t in
                for y in 0..<h {
                    var row: Int32 = 0
                    let base = (y + 1) * (w + 1)
                    for x in 0..<w {
                        row += Int32(px[y * w + x])
                        t[base + x + 1] = t[base - (w + 1) + x + 1] + row
                    }
                }
            }
        }
        return table
    }

    /// Local-mean thresholding with window `2r+1`. `dark` marks pixels darker than their surround by
    /// more than `offset`; otherwise lighter ones.
    static func adaptive(_ image: GrayImage, integral table: [Int32], radius r: Int, offset: Int, dark: Bool) -> Mask {
        let w = image.width, h = image.height
        var bits = [UInt8](repeating: 0, count: w * h)
        image.pixels.withUnsafeBufferPointer { px in
            table.withUnsafeBufferPointer { t in
                bits.withUnsafeMutableBufferPointer { out in
                    for y in 0..<h {
                        let ya = max(0, y - r), yb = min(h, y + r + 1)
                        for x in 0..<w {
                            let xa = max(0, x - r), xb = min(w, x + r + 1)
                            let sum = t[yb * (w + 1) + xb] - t[ya * (w + 1) + xb] - t[yb * (w + 1) + xa] + t[ya * (w + 1) + xa]
                            let n = Int32((yb - ya) * (xb - xa))
                            let v = Int32(px[y * w + x]) * n
                            if dark {
                                if v < sum - Int32(offset) * n { out[y * w + x] = 1 }
                            } else if v > sum + Int32(offset) * n {
                                out[y * w + x] = 1
                            }
                        }
                    }
                }
            }
        }
        return Mask(width: w, height: h, bits: bits)
    }

    /// Cuts each blob that `isCandidate` accepts (glyph height, several glyphs wide) at the
    /// emptiest columns near where evenly spaced glyphs would meet, when those columns are thin
    /// (glyphs touch at a point or through a band; a glyph's own strokes are thicker). The pieces
    /// get new labels and are appended; the original blob is emptied (area 0).
    /// `pitch`, when given, is the width one glyph and its gap take in the row (else 0.62 of the
    /// blob's height is assumed).
    static func splitTouching(
        _ blobs: inout [Blob], labels: inout [Int32], width: Int, pitch: Double? = nil, isCandidate: (Blob) -> Bool
    ) {
        var extra: [Blob] = []
        // New pieces get labels no blob has yet.
        var nextLabel = (labels.max() ?? 0) + 1
        for index in blobs.indices where isCandidate(blobs[index]) {
            let b = blobs[index]
            let bh = Double(b.height), bw = Double(b.width)
            let pieces = max(2, Int((bw / (pitch ?? 0.62 * bh)).rounded()))
            var counts = [Int](repeating: 0, count: b.width)
            for y in b.y0...b.y1 {
                for x in b.x0...b.x1 where labels[y * width + x] == b.label { counts[x - b.x0] += 1 }
            }
            var cuts: [Int] = [0]
            let step = bw / Double(pieces)
            for j in 1..<pieces {
                let centre = Int(Double(j) * step), reach = max(1, Int(step * 0.25))
                let range = max(1, centre - reach)...max(1, min(b.width - 2, centre + reach))
                let cut = range.min { counts[$0] < counts[$1] }!
                if Double(counts[cut]) <= 0.25 * bh { cuts.append(cut) }
            }
            guard cuts.count > 1 else { continue }
            cuts.append(b.width)
            for j in 0..<(cuts.count - 1) where cuts[j + 1] > cuts[j] {
                let label = nextLabel
                nextLabel += 1
                var piece = Blob(x0: Int.max, y0: Int.max, x1: -1, y1: -1, area: 0, label: label)
                for y in b.y0...b.y1 {
                    for x in (b.x0 + cuts[j])..<(b.x0 + cuts[j + 1]) where labels[y * width + x] == b.label {
                        labels[y * width + x] = label
                        piece.area += 1
                        piece.x0 = min(piece.x0, x)
                        piece.x1 = max(piece.x1, x)
                        piece.y0 = min(piece.y0, y)
                        piece.y1 = max(piece.y1, y)
                    }
                }
                if piece.area > 0 { extra.append(piece) }
            }
            blobs[index].area = 0
        }
        blobs += extra
    }

    /// The mean of each pixel's `(2r+1)²` neighbourhood (clipped at the borders).
    static func localMean(_ image: GrayImage, integral table: [Int32], radius r: Int) -> [UInt8] {
        let w = image.width, h = image.height
        var out = [UInt8](repeating: 0, count: w * h)
        table.withUnsafeBufferPointer { t in
            out.withUnsafeMutableBufferPointer { o in
                for y in 0..<h {
                    let ya = max(0, y - r), yb = min(h, y + r + 1)
                    let rowA = ya * (w + 1), rowB = yb * (w + 1)
                    for x in 0..<w {
                        let xa = max(0, x - r), xb = min(w, x + r + 1)
                        let sum = t[rowB + xb] - t[rowA + xb] - t[rowB + xa] + t[rowA + xa]
                        let n = Int32((yb - ya) * (xb - xa))
                        o[y * w + x] = UInt8((sum + n / 2) / n)
                    }
                }
            }
        }
        return out
    }

    /// Pixels darker (or lighter) than their local mean by more than `offset`.
    static func threshold(_ image: GrayImage, mean: [UInt8], offset: Int, dark: Bool) -> Mask {
        var bits = [UInt8](repeating: 0, count: image.count)
        image.pixels.withUnsafeBufferPointer { px in
            mean.withUnsafeBufferPointer { m in
                bits.withUnsafeMutableBufferPointer { out in
                    if dark {
                        for i in 0..<px.count where Int(px[i]) < Int(m[i]) - offset { out[i] = 1 }
                    } else {
                        for i in 0..<px.count where Int(px[i]) > Int(m[i]) + offset { out[i] = 1 }
                    }
                }
            }
        }
        return Mask(width: image.width, height: image.height, bits: bits)
    }

    /// `mask` without its horizontal runs longer than `length`: the edges of plate frames and
    /// borders go, glyph strokes (shorter than a glyph is wide) stay.
    static func withoutLongRuns(_ mask: Mask, longerThan length: Int) -> Mask {
        var out = mask
        let w = mask.width
        out.bits.withUnsafeMutableBufferPointer { o in
            for y in 0..<mask.height {
                let row = y * w
                var x = 0
                while x < w {
                    guard o[row + x] != 0 else {
                        x += 1
                        continue
                    }
                    var end = x
                    while end < w, o[row + end] != 0 { end += 1 }
                    if end - x > length { for i in x..<end { o[row + i] = 0 } }
                    x = end
                }
            }
        }
        return out
    }

    /// Otsu's global threshold over `pixels`.
    static func otsu(_ pixels: [UInt8]) -> Int { Threshold.otsu(pixels) }

    /// The boxes and areas of the 4-connected components of `mask`, in the order of their first
    /// pixel (row by row), without a label image. See ``components(_:labels:)``.
    static func componentBoxes(_ mask: Mask) -> [Blob] {
        labelRuns(mask).blobs
    }

    /// 4-connected components of `mask`, in the order of their first pixel (row by row). `labels`
    /// gets each pixel's blob index + 1 (0 = background).
    static func components(_ mask: Mask, labels: inout [Int32]) -> [Blob] {
        let found = labelRuns(mask)
        labels = [Int32](repeating: 0, count: mask.width * mask.height)
        labels.withUnsafeMutableBufferPointer { out in
            for r in found.runs.indices {
                let run = found.runs[r], label = Int32(found.blobOfRun[r] + 1)
                let row = Int(run.y) * mask.width
                for x in Int(run.x0)...Int(run.x1) { out[row + x] = label }
            }
        }
        return found.blobs
    }

    /// A horizontal run of set pixels.
    struct Run {
        var y: Int32, x0: Int32, x1: Int32
    }

    /// Connected components by runs: the set pixels of each row as runs, joined to the runs they
    /// overlap in the row above through a union-find, each blob's box and area from its runs.
    static func labelRuns(_ mask: Mask) -> (blobs: [Blob], runs: [Run], blobOfRun: [Int32]) {
        let w = mask.width, h = mask.height
        var runs: [Run] = []
        var rowStart = [Int](repeating: 0, count: h + 1)
        mask.bits.withUnsafeBufferPointer { m in
            for y in 0..<h {
                rowStart[y] = runs.count
                let row = y * w
                var x = 0
                while x < w {
                    if m[row + x] == 0 {
                        x += 1
                        continue
                    }
                    let start = x
                    while x < w, m[row + x] != 0 { x += 1 }
                    runs.append(Run(y: Int32(y), x0: Int32(start), x1: Int32(x - 1)))
                }
            }
            rowStart[h] = runs.count
        }
        var parent = (0..<Int32(runs.count)).map { $0 }
        func find(_ i: Int32) -> Int32 {
            var i = i
            while parent[Int(i)] != i {
                parent[Int(i)] = parent[Int(parent[Int(i)])]
                i = parent[Int(i)]
            }
            return i
        }
        // Join each run with the runs above it that it overlaps (4-connectivity).
        for y in 1..<max(1, h) {
            var above = rowStart[y - 1]
            let aboveEnd = rowStart[y]
            for r in rowStart[y]..<rowStart[y + 1] {
                while above < aboveEnd, runs[above].x1 < runs[r].x0 { above += 1 }
                var a = above
                while a < aboveEnd, runs[a].x0 <= runs[r].x1 {
                    let ra = find(Int32(a)), rb = find(Int32(r))
                    // The earlier run stays the root: blobs keep their first-pixel order.
                    if ra < rb { parent[Int(rb)] = ra } else if rb < ra { parent[Int(ra)] = rb }
                    a += 1
                }
                // The last run above that overlapped may overlap the next run too.
                if a > above { above = a - 1 }
            }
        }
        var index = [Int32](repeating: -1, count: runs.count)
        var blobOfRun = [Int32](repeating: 0, count: runs.count)
        var blobs: [Blob] = []
        for r in runs.indices {
            let run = runs[r]
            let root = Int(find(Int32(r)))
            var b = Int(index[root])
            if b < 0 {
                b = blobs.count
                index[root] = Int32(b)
                blobs.append(Blob(x0: Int(run.x0), y0: Int(run.y), x1: Int(run.x1), y1: Int(run.y), area: 0, label: Int32(b + 1)))
            }
            blobOfRun[r] = Int32(b)
            blobs[b].x0 = min(blobs[b].x0, Int(run.x0))
            blobs[b].x1 = max(blobs[b].x1, Int(run.x1))
            blobs[b].y1 = max(blobs[b].y1, Int(run.y))
            blobs[b].area += Int(run.x1 - run.x0 + 1)
        }
        return (blobs, runs, blobOfRun)
    }
}
