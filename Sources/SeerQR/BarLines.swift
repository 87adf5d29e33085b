import SeerImage
#if canImport(Glibc)
import Glibc
#endif

/// EAN-13, UPC-A and EAN-8 read by Seer itself along lines across each patch of bars
/// (``BarEvidence``) at the patch's own angle, where zbar, which scans rows and columns, read none;
/// GS1 DataBar Limited, which zbar does not read, along the same lines (``DataBarLimited``).
///
/// Each line is decoded whole on its own (``LinearCheck/decodeLine(_:)``: guards, quiet zones, every
/// digit clear, the check digit; ``DataBarLimited/decodeLine(_:)``: guards, every character a valid
/// one, the mod-89 check character); a symbol is reported when enough lines of its patch decode it
/// (EAN/UPC two, DataBar Limited three) and no line of the patch decodes another symbol overlapping it.
extension ReadSession {
    /// Lines sampled across one patch.
    static let linesPerPatch = 11
    /// Lines sampled across one patch for DataBar Limited (longer ones, spread over a turned
    /// symbol's own height).
    static let dataBarLimitedLines = 7
    /// The patches looked at, largest first.
    static let patchesRead = 4
    /// The least lines of a patch that must decode one DataBar Limited symbol: its one check value
    /// (mod 89) is weaker than an EAN's guards and check digit together with its fixed layout.
    static let leastDataBarLimitedLines = 3

    var wantsEAN: Bool { !options.symbologies.isDisjoint(with: [.ean13, .upca, .ean8, .upce]) }

    /// One symbol decoded whole on one line across a patch.
    private struct LineRead {
        var symbology: Symbology
        var text: String
        var gs1 = false
        /// Where along the line it lies, and the line's offset along the bars.
        var from: Double, to: Double, offset: Double
        /// The lines' centre, their direction (across the bars) and the direction along the bars.
        var centre: Point, u: Point, v: Point
        var key: String { symbology.rawValue + (gs1 ? "+gs1:" : ":") + text }
        func point(_ t: Double, _ s: Double) -> Point { Point(x: centre.x + t * u.x + s * v.x, y: centre.y + t * u.y + s * v.y) }
    }

    /// The boxes of the linear codes read (other than `except`'s), in work coordinates: a patch of
    /// bars touching one (``patch(_:scale:touches:)``) is that code's bars.
    func linearCodeBoxes(except: Symbology? = nil) -> [(x0: Double, y0: Double, x1: Double, y1: Double)] {
        found.filter { !$0.raw.symbology.isMatrix && $0.raw.symbology != except }.map { f in
            (x0: f.corners.map(\.x).min()!, y0: f.corners.map(\.y).min()!, x1: f.corners.map(\.x).max()!, y1: f.corners.map(\.y).max()!)
        }
    }

    /// Whether a patch of bars (reduced-level pixels; `scale` to work coordinates) touches one of `boxes`.
    static func patch(
        _ patch: BarEvidence.Patch, scale: (Double, Double), touches boxes: [(x0: Double, y0: Double, x1: Double, y1: Double)]
    ) -> Bool {
        let x0 = Double(patch.x0) * scale.0, x1 = Double(patch.x1) * scale.0
        let y0 = Double(patch.y0) * scale.1, y1 = Double(patch.y1) * scale.1
        return boxes.contains { $0.x0 <= x1 && $0.x1 >= x0 && $0.y0 <= y1 && $0.y1 >= y0 }
    }

    mutating func readAcrossPatches() {
        // EAN/UPC and Code 128 while no linear code is read; DataBar Limited in patches no linear
        // code read touches.
        let ean = (wantsEAN || options.symbologies.contains(.code128)) && !found.contains(where: { !$0.raw.symbology.isMatrix })
        let limited = options.symbologies.contains(.databarLimited)
        guard ean || limited, showsBars(), let (_, scale) = level(.reduced) else { return }
        let patches = openBarPatches.sorted { $0.cells > $1.cells }.prefix(Self.patchesRead)
        let linear = linearCodeBoxes()
        if debug { debugLog("bar lines: \(patches.count) patches") }
        for (index, patch) in patches.enumerated() {
            if outOfTime { return }
            if Self.patch(patch, scale: scale, touches: linear) {
                if debug { debugLog("bar lines: patch of \(patch.cells) cells holds a linear code read") }
                continue
            }
            read(patch, scale: scale, ean: ean, limited: limited, greyLevels: index == 0)
        }
    }

    private mutating func read(_ patch: BarEvidence.Patch, scale: (Double, Double), ean: Bool, limited: Bool, greyLevels: Bool) {
        let x0 = Double(patch.x0) * scale.0, x1 = Double(patch.x1) * scale.0
        let y0 = Double(patch.y0) * scale.1, y1 = Double(patch.y1) * scale.1
        let centre = Point(x: (x0 + x1) / 2, y: (y0 + y1) / 2)
        var decoded: [LineRead] = []
        let upce = options.symbologies.contains(.upce)
        if ean {
            // Lines at the patch's angle, reaching past it for the quiet zones and the cells the
            // patch's edge cut.
            let code128 = options.symbologies.contains(.code128)
            let decode = { (line: [LinearCheck.Element]) -> [(Symbology, String, Bool, Double, Double)] in
                var out = LinearCheck.decodeLine(line, upce: upce).map { ($0.symbology, $0.text, false, $0.from, $0.to) }
                // Code 128 (its check character, start and stop patterns; its bytes as ISO-8859-1
                // text), placed over the whole line: any other symbol the patch's lines decode is
                // its rival.
                if code128, let first = line.first, let last = line.last {
                    for elements in [line, Array(line.reversed())] {
                        guard let c = LinearCheck.decodeCode128Line(elements) else { continue }
                        let text = String(String.UnicodeScalarView(c.bytes.map { Unicode.Scalar($0) }))
                        out.append((.code128, text, c.gs1, first.start, last.start + last.width))
                        break
                    }
                }
                return out
            }
            decoded += lines(centre: centre, angle: patch.angle, width: x1 - x0, height: y1 - y0, reach: { 1.4 * $0 + 24 }, decode: decode)
            // A symbol turned well away from the rows and columns (over 15°) leaves its box much
            // taller than its bars: lines spread over its own height too, so that several cross it.
            let turn = patch.angle.truncatingRemainder(dividingBy: .pi / 2)
            let turned = min(turn, .pi / 2 - turn) > 0.26
            if turned {
                decoded += lines(
                    centre: centre, angle: patch.angle, width: x1 - x0, height: y1 - y0, reach: { 1.4 * $0 + 24 }, turnedBox: true, decode: decode)
            }
            // Where no line's elements hold a symbol, EAN-13, UPC-A and EAN-8 from the grey levels
            // themselves (blur merging thin bars and spaces).
            let ean13 = options.symbologies.contains(where: { $0 == .ean13 || $0 == .upca }), ean8 = options.symbologies.contains(.ean8)
            if greyLevels && decoded.isEmpty && !outOfTime && (ean13 || ean8) {
                decoded += lines(
                    centre: centre, angle: patch.angle, width: x1 - x0, height: y1 - y0, reach: { 1.4 * $0 + 24 }, turnedBox: turned,
                    decode: { _ in [] },
                    values: { values, offset, width in
                        LinearCheck.decodeBySynthesis(values, offset: offset, width: width, ean13: ean13, ean8: ean8)
                            .map { ($0.symbology, $0.text, false, $0.from, $0.to) }
                    })
            }
        }
        if limited {
            // DataBar's wide spaces split its bars into several patches, the first cell's angle may
            // be off, and the patch may hold only part of the symbol: lines at the angle of the
            // whole patch's edges, reaching twice as far, and spread over the height a turned
            // symbol's box leaves it.
            let angle = edgeAngle(patch) ?? patch.angle
            decoded += lines(
                centre: centre, angle: angle, width: x1 - x0, height: y1 - y0, reach: { 3 * $0 + 24 }, count: Self.dataBarLimitedLines,
                turnedBox: true
            ) {
                DataBarLimited.decodeLine($0).map { (.databarLimited, $0.text, true, $0.from, $0.to) }
            }
        }
        if debug { debugLog("bar lines: patch of \(patch.cells) cells at \(Int(centre.x)),\(Int(centre.y)): \(decoded.count) readings") }
        guard !decoded.isEmpty else { return }
        // Symbols read on enough lines, with no other symbol overlapping them on any line.
        var groups: [String: [LineRead]] = [:]
        for d in decoded { groups[d.key, default: []].append(d) }
        for (key, lines) in groups {
            // Lines counted once each (the two spreads of a turned patch share the middle one).
            let distinct = Set(lines.map { Int(($0.offset * 8).rounded()) }).count
            guard distinct >= (lines[0].symbology == .databarLimited ? Self.leastDataBarLimitedLines : 2) else { continue }
            let from = lines.map(\.from).min()!, to = lines.map(\.to).max()!
            let rival = decoded.contains { $0.key != key && $0.from < to && $0.to > from }
            if rival {
                if debug { debugLog("bar lines: \(lines[0].text) and another symbol in one place: neither") }
                continue
            }
            let s0 = lines.map(\.offset).min()!, s1 = lines.map(\.offset).max()!
            let l = lines[0]
            let quad = [l.point(from, s0), l.point(to, s0), l.point(to, s1), l.point(from, s1)]
            let xs = quad.map(\.x), ys = quad.map(\.y)
            let corners = [
                Point(x: xs.min()!, y: ys.min()!), Point(x: xs.max()!, y: ys.min()!), Point(x: xs.max()!, y: ys.max()!),
                Point(x: xs.min()!, y: ys.max()!),
            ]
            var symbology = lines[0].symbology
            var text = lines[0].text
            if symbology == .ean13 && text.hasPrefix("0") && options.symbologies.contains(.upca) {
                symbology = .upca
                text = String(text.dropFirst())
            }
            guard options.symbologies.contains(symbology) else { continue }
            let bytes = symbology == .code128 ? text.unicodeScalars.map { UInt8($0.value) } : Array(text.utf8)
            // zbar's readings of this place that disagreed with each other must all be this one.
            let digits = LinearCheck.lineDigits(symbology, text: text)
            if disputed.contains(where: { d in
                Self.boxesOverlap(d.corners, corners)
                    && (digits == nil
                        ? d.bytes != bytes : LinearCheck.lineDigits(d.symbology, text: String(decoding: d.bytes, as: UTF8.self)) != digits)
            }) {
                if debug { debugLog("bar lines: \(symbology) \(text) where readings disagreed: dropped") }
                continue
            }
            if debug { debugLog("bar lines: \(symbology) \(text) on \(lines.count) lines") }
            // DataBar Limited's text is a GS1 element string (AI 01), as zbar gives DataBar's.
            var raw = RawSymbol(symbology: symbology, bytes: bytes, points: [], quality: lines.count, isGS1: lines[0].gs1)
            raw.barsAgree = true
            raw.confirmedTwice = true
            add(raw, corners: corners, module: 0)
        }
    }

    /// The symbols `decode` finds on lines across a patch (centre, box size in work pixels) at
    /// `angle` (the bars' normal), each line reaching `reach(half extent across)` either side of the
    /// centre, `count` of them spread over 0.8 of the patch's extent along the bars (of a turned
    /// symbol's own height when `turnedBox`), each read with one level for the whole line and with
    /// levels local to each stretch.
    private func lines(
        centre: Point, angle: Double, width w: Double, height h: Double, reach: (Double) -> Double,
        count: Int = linesPerPatch, turnedBox: Bool = false,
        decode: ([LinearCheck.Element]) -> [(Symbology, String, Bool, Double, Double)],
        values decodeValues: (([Double], Double, Double) -> [(Symbology, String, Bool, Double, Double)])? = nil
    ) -> [LineRead] {
        let u = Point(x: cos(angle), y: sin(angle)), v = Point(x: -sin(angle), y: cos(angle))
        // The patch's half extent across and along the bars.
        let across = abs(u.x) * w / 2 + abs(u.y) * h / 2
        var along = abs(v.x) * w / 2 + abs(v.y) * h / 2
        if turnedBox {
            // A symbol W across the bars and H along them, turned, has the box w = W c + H s,
            // h = W s + H c (c, s: the turn's cosine and sine): its own H where that is well posed
            // (the turn away from 45°), else 0.7 of its half width (a linear symbol is much wider
            // than high); never more than the box's own extent, never under 8 pixels either side.
            let c = abs(u.x), sn = abs(u.y), d = c * c - sn * sn
            let height = abs(d) >= 0.3 ? (h * c - w * sn) / d : 0.7 * across
            along = min(along, max(height / 2, 8))
        }
        let reach = reach(across)
        let n = Int(2 * reach)
        let wide = Int(4 * 2 * across / 95)
        guard n >= 60 else { return [] }
        var decoded: [LineRead] = []
        let image = work
        image.pixels.withUnsafeBufferPointer { p in
            var values = [Double](repeating: 255, count: n)
            // Decoding from grey levels costs more: its lines from the middle out, given up after
            // two that decode nothing, done after two that decode something.
            let order = decodeValues == nil ? Array(0..<count) : (0..<count).sorted { abs(2 * $0 - count + 1) < abs(2 * $1 - count + 1) }
            var tried = 0, read = 0
            for k in order {
                if decodeValues != nil && (read >= 2 || (tried >= 2 && read == 0)) { break }
                let s = along * 0.8 * (2 * Double(k) / Double(count - 1) - 1)
                let ox = centre.x + s * v.x - reach * u.x, oy = centre.y + s * v.y - reach * u.y
                for i in 0..<n {
                    values[i] = Imaging.sampleFloat(p, image.width, image.height, ox + Double(i) * u.x, oy + Double(i) * u.y)
                }
                var seen: [LineRead] = []
                if let decodeValues {
                    tried += 1
                    for (symbology, text, gs1, from, to) in decodeValues(values, -reach, 2 * across) {
                        seen.append(LineRead(symbology: symbology, text: text, gs1: gs1, from: from, to: to, offset: s, centre: centre, u: u, v: v))
                    }
                    if !seen.isEmpty { read += 1 }
                    decoded += seen
                    continue
                }
                // One level for the whole line, levels local to a window of 8 pixels each way, and
                // (bars wider than that) to a window of four modules each way, the module being the
                // patch's extent across over an EAN-13's 95: in a window narrower than a wide bar a
                // blurred edge's level drifts and noise splits the bar.
                var profiles = [nil, 8].map { LinearCheck.elements(values, offset: -reach, radius: $0) }
                if wide > 8 { profiles.append(LinearCheck.elements(values, offset: -reach, radius: wide)) }
                for elements in profiles {
                    for (symbology, text, gs1, from, to) in decode(elements) {
                        let read = LineRead(symbology: symbology, text: text, gs1: gs1, from: from, to: to, offset: s, centre: centre, u: u, v: v)
                        if !seen.contains(where: { $0.key == read.key }) { seen.append(read) }
                    }
                }
                decoded += seen
            }
        }
        return decoded
    }

    /// The direction of the edges' normal over a patch's box on the reduced level (the structure
    /// tensor of the grey-level gradient, summed over the box), or nil without edges.
    mutating func edgeAngle(_ patch: BarEvidence.Patch) -> Double? {
        guard let (image, _) = level(.reduced) else { return nil }
        let w = image.width
        var jxx = 0.0, jyy = 0.0, jxy = 0.0
        image.pixels.withUnsafeBufferPointer { p in
            for y in max(1, patch.y0)..<min(image.height - 1, patch.y1) {
                for x in max(1, patch.x0)..<min(w - 1, patch.x1) {
                    let gx = Double(Int(p[y * w + x + 1]) - Int(p[y * w + x - 1]))
                    let gy = Double(Int(p[y * w + x + w]) - Int(p[y * w + x - w]))
                    jxx += gx * gx
                    jyy += gy * gy
                    jxy += gx * gy
                }
            }
        }
        guard jxx + jyy > 0 else { return nil }
        return 0.5 * atan2(2 * jxy, jxx - jyy)
    }
}
