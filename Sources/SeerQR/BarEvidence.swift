import SeerImage
#if canImport(Glibc)
import Glibc
#endif

/// Whether an image shows anything like a linear barcode: a patch of parallel edges, many of them,
/// all running one way. The reader asks before its fallback passes for linear codes (a grey level
/// thresholded, binarised, stretched or enlarged and scanned whole by zbar), which cost most of the
/// time of a photo that holds no code: where no patch of bars is seen, they cannot read one.
///
/// The image is cut into square cells. In each, the structure tensor of the grey-level gradient
/// gives the dominant edge direction and how coherent the edges are (1: all parallel; text, foliage
/// and noise, which run every way, stay well below); a profile across the edges through the cell
/// counts how many there are (a barcode's bars give several a cell; the edge of a sign, a shelf or a
/// shadow gives one). Cells that pass are candidates; a candidate patch is at least eight touching
/// cells with about the same direction. Contrast does not enter beyond a floor: a faint or blurred
/// barcode's bars are as coherent as a crisp one's.
enum BarEvidence {
    /// The thresholds; the defaults are set loose, so that every photo of the project's benchmark set
    /// whose code the fallback passes read still passes (a photo let through only costs time).
    struct Limits: Sendable {
        /// Least coherence of a cell's edges (0–1).
        var coherence = 0.55
        /// Least number of light–dark alternations across a cell's edges, over four cell lengths
        /// (DataBar's elements are up to eight modules wide).
        var transitions = 4
        /// Least grey-level range within the profile across the edges.
        var contrast = 16
        /// Least touching cells of one direction in a patch. Text and a QR Code's modules give
        /// patches of up to about seven cells where edges happen to line up; the barcodes of the
        /// benchmark photos that are read give eleven or more.
        var cells = 8
    }

    /// A patch of bars: how many cells, the direction of the edges' normal (radians, 0–π), and the
    /// box of its cells in image pixels.
    struct Patch: Sendable {
        var cells: Int
        var angle: Double
        var x0: Int, y0: Int, x1: Int, y1: Int
    }

    /// The side of the square cells `image` is cut into, in pixels.
    static func cellSide(_ image: GrayImage) -> Int { max(8, max(image.width, image.height) / 48) }

    /// The patches found.
    static func patches(in image: GrayImage, limits: Limits = Limits()) -> [Patch] {
        let w = image.width, h = image.height
        let cell = cellSide(image)
        let cw = w / cell, ch = h / cell
        guard cw >= 1, ch >= 1 else { return [] }
        var angle = [Double](repeating: -1, count: cw * ch)  // -1: not a candidate
        image.pixels.withUnsafeBufferPointer { p in
            for cy in 0..<ch {
                for cx in 0..<cw {
                    let x0 = cx * cell, y0 = cy * cell
                    // Sums of whole numbers, exact in integers (a cell's are far below Int's range).
                    var sxx = 0, syy = 0, sxy = 0
                    for y in max(1, y0)..<min(h - 1, y0 + cell) {
                        let row = y * w
                        for x in max(1, x0)..<min(w - 1, x0 + cell) {
                            let gx = Int(p[row + x + 1]) &- Int(p[row + x - 1])
                            let gy = Int(p[row + x + w]) &- Int(p[row + x - w])
                            sxx &+= gx &* gx
                            syy &+= gy &* gy
                            sxy &+= gx &* gy
                        }
                    }
                    let jxx = Double(sxx), jyy = Double(syy), jxy = Double(sxy)
                    let energy = jxx + jyy
                    guard energy > 0 else { continue }
                    let coherence = ((jxx - jyy) * (jxx - jyy) + 4 * jxy * jxy).squareRoot() / energy
                    guard coherence >= limits.coherence else { continue }
                    // The gradient's direction: across the bars.
                    var theta = 0.5 * atan2(2 * jxy, jxx - jyy)
                    if theta < 0 { theta += .pi }
                    guard alternations(p, w, h, cx: Double(x0) + Double(cell) / 2, cy: Double(y0) + Double(cell) / 2,
                        angle: theta, length: Double(4 * cell), contrast: limits.contrast) >= limits.transitions
                    else { continue }
                    angle[cy * cw + cx] = theta
                }
            }
        }
        // Patches: touching candidate cells whose directions differ by less than 0.35 rad (mod π).
        func close(_ a: Double, _ b: Double) -> Bool {
            let d = abs(a - b)
            return min(d, .pi - d) < 0.35
        }
        var seen = [Bool](repeating: false, count: cw * ch)
        var found: [Patch] = []
        for start in 0..<(cw * ch) where angle[start] >= 0 && !seen[start] {
            seen[start] = true
            var stack = [start], count = 0
            var bx0 = cw, by0 = ch, bx1 = 0, by1 = 0
            while let i = stack.popLast() {
                count += 1
                let x = i % cw, y = i / cw
                bx0 = min(bx0, x); by0 = min(by0, y); bx1 = max(bx1, x); by1 = max(by1, y)
                for dy in -1...1 {
                    for dx in -1...1 {
                        let nx = x + dx, ny = y + dy
                        guard nx >= 0, ny >= 0, nx < cw, ny < ch else { continue }
                        let j = ny * cw + nx
                        if !seen[j], angle[j] >= 0, close(angle[j], angle[i]) {
                            seen[j] = true
                            stack.append(j)
                        }
                    }
                }
            }
            if count >= limits.cells {
                found.append(Patch(
                    cells: count, angle: angle[start], x0: bx0 * cell, y0: by0 * cell,
                    x1: min(w, (bx1 + 1) * cell), y1: min(h, (by1 + 1) * cell)))
            }
        }
        return found
    }

    /// Whether the image may hold a linear code: some patch of bars, or an image too small to cut
    /// into cells (nothing is ruled out there).
    /// `patches`: those ``patches(in:limits:)`` found on the image, when already looked for.
    static func mayHoldBars(_ image: GrayImage, limits: Limits = Limits(), patches found: [Patch]? = nil) -> Bool {
        let cell = cellSide(image)
        if image.width < 3 * cell || image.height < 3 * cell { return true }
        return !(found ?? patches(in: image, limits: limits)).isEmpty
    }

    /// Light–dark alternations along a line through (`cx`, `cy`) in direction `angle`, counted two
    /// ways and the larger kept: crossings of the profile's mid-level (with a hysteresis of a sixth
    /// of its range), and turns of the profile by at least a quarter of its range. The first misses
    /// a blurred code's thin bars, which stay on one side of a mid-level set by its wide ones; the
    /// second misses a gradual ramp's crossings.
    private static func alternations(
        _ p: UnsafeBufferPointer<UInt8>, _ w: Int, _ h: Int, cx: Double, cy: Double, angle: Double, length: Double, contrast: Int
    ) -> Int {
        let dx = cos(angle), dy = sin(angle)
        let n = Int(length)
        var profile: [Int] = []
        profile.reserveCapacity(n)
        for k in 0..<n {
            let t = Double(k) - length / 2
            let x = Int((cx + t * dx).rounded()), y = Int((cy + t * dy).rounded())
            guard x >= 0, y >= 0, x < w, y < h else { continue }
            profile.append(Int(p[y * w + x]))
        }
        guard let lo = profile.min(), let hi = profile.max(), hi - lo >= contrast else { return 0 }
        let mid = (lo + hi) / 2, band = (hi - lo) / 6
        var state = 0, crossings = 0
        for v in profile {
            let s = v > mid + band ? 1 : v < mid - band ? -1 : 0
            if s != 0 && s != state {
                if state != 0 { crossings += 1 }
                state = s
            }
        }
        // Turns: the profile rises or falls by `step` from its last extreme.
        let step = max(contrast / 2, (hi - lo) / 4)
        var direction = 0, top = profile[0], bottom = profile[0], turns = 0
        for v in profile.dropFirst() {
            switch direction {
            case 0:
                top = max(top, v)
                bottom = min(bottom, v)
                if v - bottom >= step {
                    direction = 1
                    top = v
                } else if top - v >= step {
                    direction = -1
                    bottom = v
                }
            case 1:
                if v > top {
                    top = v
                } else if top - v >= step {
                    direction = -1
                    bottom = v
                    turns += 1
                }
            default:
                if v < bottom {
                    bottom = v
                } else if v - bottom >= step {
                    direction = 1
                    top = v
                    turns += 1
                }
            }
        }
        return max(crossings, turns)
    }
}
