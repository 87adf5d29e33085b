import SeerImage
#if canImport(Glibc)
import Glibc
#endif

/// EAN-13, UPC-A and EAN-8 read by Seer itself along lines across each patch of bars
/// (``BarEvidence``) at the patch's own angle, where zbar, which scans rows and columns, read none.
///
/// Each line is decoded whole on its own (``LinearCheck/decodeLine(_:)``: guards, quiet zones, every
/// digit clear, the check digit); a symbol is reported when at least two lines of its patch decode it
/// and no line of the patch decodes another symbol overlapping it.
extension ReadSession {
    /// Lines sampled across one patch.
    static let linesPerPatch = 11
    /// The patches looked at, largest first.
    static let patchesRead = 4

    var wantsEAN: Bool { !options.symbologies.isDisjoint(with: [.ean13, .upca, .ean8]) }

    mutating func readAcrossPatches() {
        guard wantsEAN, !found.contains(where: { !$0.raw.symbology.isMatrix }), showsBars(),
            let (reduced, scale) = level(.reduced)
        else { return }
        let patches = BarEvidence.patches(in: reduced).sorted { $0.cells > $1.cells }.prefix(Self.patchesRead)
        for patch in patches {
            if outOfTime { return }
            read(patch, scale: scale)
        }
    }

    private mutating func read(_ patch: BarEvidence.Patch, scale: (Double, Double)) {
        // Across the bars (the edges' normal) and along them, in work pixels.
        let u = (x: cos(patch.angle), y: sin(patch.angle)), v = (x: -sin(patch.angle), y: cos(patch.angle))
        let x0 = Double(patch.x0) * scale.0, x1 = Double(patch.x1) * scale.0
        let y0 = Double(patch.y0) * scale.1, y1 = Double(patch.y1) * scale.1
        let cx = (x0 + x1) / 2, cy = (y0 + y1) / 2
        let w = x1 - x0, h = y1 - y0
        // The patch's half extent across and along the bars, the lines reaching past it for the
        // quiet zones and the cells the patch's edge cut.
        let across = abs(u.x) * w / 2 + abs(u.y) * h / 2
        let along = abs(v.x) * w / 2 + abs(v.y) * h / 2
        let reach = 1.4 * across + 24
        let n = Int(2 * reach)
        guard n >= 60 else { return }
        var decoded: [(symbol: LinearCheck.LineSymbol, offset: Double)] = []
        let image = work
        image.pixels.withUnsafeBufferPointer { p in
            for k in 0..<Self.linesPerPatch {
                let s = along * 0.8 * (2 * Double(k) / Double(Self.linesPerPatch - 1) - 1)
                let ox = cx + s * v.x - reach * u.x, oy = cy + s * v.y - reach * u.y
                var values = [Double](repeating: 255, count: n)
                for i in 0..<n {
                    values[i] = Imaging.sampleFloat(p, image.width, image.height, ox + Double(i) * u.x, oy + Double(i) * u.y)
                }
                var seen: [LinearCheck.LineSymbol] = []
                for radius in [nil, 8] as [Int?] {
                    for symbol in LinearCheck.decodeLine(LinearCheck.elements(values, offset: -reach, radius: radius))
                    where !seen.contains(where: { $0.digits == symbol.digits }) {
                        seen.append(symbol)
                    }
                }
                decoded += seen.map { ($0, s) }
            }
        }
        guard !decoded.isEmpty else { return }
        // Symbols read on two lines or more, with no other symbol overlapping them on any line.
        var groups: [[Int]: [(symbol: LinearCheck.LineSymbol, offset: Double)]] = [:]
        for d in decoded { groups[d.symbol.digits, default: []].append(d) }
        for (digits, lines) in groups where lines.count >= 2 {
            let from = lines.map(\.symbol.from).min()!, to = lines.map(\.symbol.to).max()!
            let rival = decoded.contains { $0.symbol.digits != digits && $0.symbol.from < to && $0.symbol.to > from }
            if rival {
                if debug { debugLog("bar lines: \(lines[0].symbol.text) and another symbol in one place: neither") }
                continue
            }
            let s0 = lines.map(\.offset).min()!, s1 = lines.map(\.offset).max()!
            func point(_ t: Double, _ s: Double) -> Point { Point(x: cx + t * u.x + s * v.x, y: cy + t * u.y + s * v.y) }
            let quad = [point(from, s0), point(to, s0), point(to, s1), point(from, s1)]
            let xs = quad.map(\.x), ys = quad.map(\.y)
            let corners = [
                Point(x: xs.min()!, y: ys.min()!), Point(x: xs.max()!, y: ys.min()!), Point(x: xs.max()!, y: ys.max()!),
                Point(x: xs.min()!, y: ys.max()!),
            ]
            let symbol = lines[0].symbol
            var symbology = symbol.symbology
            var text = symbol.text
            if symbology == .ean13 && digits[0] == 0 && options.symbologies.contains(.upca) {
                symbology = .upca
                text = String(text.dropFirst())
            }
            guard options.symbologies.contains(symbology) else { continue }
            if debug { debugLog("bar lines: \(symbology) \(text) on \(lines.count) lines") }
            var raw = RawSymbol(symbology: symbology, bytes: Array(text.utf8), points: [], quality: lines.count, isGS1: false)
            raw.barsAgree = true
            raw.confirmedTwice = true
            add(raw, corners: corners, module: 0)
        }
    }
}
