import Foundation
import SeerImage

/// The bull's-eyes of Aztec and MaxiCode symbols in one binary image, found by one pass over its
/// rows.
///
/// Both targets are concentric rings crossed by a row through their centre as runs of about one
/// module each, and both end in a dark run: the last eleven runs of a row are kept, and where a dark
/// run ends the last nine are tested as an Aztec bull's-eye (dark centre, ``AztecReader/evenRuns(_:_:_:_:_:_:_:_:_:)``)
/// and all eleven as a MaxiCode one (light centre, ``MaxiCodeReader/evenRings(_:centre:outer:)``).
/// Each found row is confirmed down its column by its reader. The candidates are those each
/// symbology's own scan of the rows found.
struct BullsEyeScan {
    /// The image scanned.
    let bin: BinaryImage
    /// Aztec bull's-eye centres, strongest first (empty when not looked for).
    var aztec: [BullsEye] = []
    /// The bull's-eyes of light-on-dark Aztec symbols (a light centre) whose diagonals cross their
    /// rings too (such symbols are rare, and each read costs a read in the image turned over),
    /// strongest first.
    var lightAztec: [BullsEye] = []
    /// MaxiCode bull's-eye centres, most often seen first (empty when not looked for).
    var maxiCode: [BullsEye] = []

    init(_ bin: BinaryImage, aztec wantsAztec: Bool, maxiCode wantsMaxiCode: Bool) {
        self.bin = bin
        guard wantsAztec || wantsMaxiCode else { return }
        let aztecReader = AztecReader(bin: bin), maxiCodeReader = MaxiCodeReader(bin: bin)
        var aztec: [BullsEye] = [], lightAztec: [BullsEye] = [], maxiCode: [BullsEye] = []
        let w = bin.width, h = bin.height
        bin.bits.withUnsafeBufferPointer { bits in
            // Every other row: a centre worth reading is two pixels tall or more (it is found
            // again on its own row and column when confirmed).
            for y in stride(from: 0, to: h, by: 2) {
                let row = y &* w
                // The last eleven runs' lengths, oldest first (r0 … r10), and the current run's start.
                var r0 = 0, r1 = 0, r2 = 0, r3 = 0, r4 = 0, r5 = 0, r6 = 0, r7 = 0, r8 = 0, r9 = 0, r10 = 0
                var count = 0, runStart = 0
                var colour = bits[row]
                var x = 1
                while x <= w {
                    if x < w && bits[row &+ x] == colour {
                        x &+= 1
                        continue
                    }
                    (r0, r1, r2, r3, r4, r5, r6, r7, r8, r9) = (r1, r2, r3, r4, r5, r6, r7, r8, r9, r10)
                    r10 = x &- runStart
                    count &+= 1
                    // Aztec: the last nine runs (r2 … r10), the centre r6 about as wide as its
                    // neighbours is the cheap test, the nine runs the full one; ending in a dark
                    // run for a dark-on-light symbol, a light one for a light-on-dark symbol.
                    if wantsAztec && count >= 9 && r6 * 2 >= r5 && r5 * 2 >= r6 && r6 * 2 >= r7 && r7 * 2 >= r6,
                        let m = AztecReader.evenRuns(r2, r3, r4, r5, r6, r7, r8, r9, r10)
                    {
                        let cx = Double(x &- (r6 &+ r7 &+ r8 &+ r9 &+ r10)) + Double(r6) / 2
                        let light = colour == 0
                        if let confirmed = aztecReader.confirm(cx, Double(y) + 0.5, module: m, light: light) {
                            if light { BullsEye.merge(confirmed, into: &lightAztec) } else { BullsEye.merge(confirmed, into: &aztec) }
                        }
                    }
                    if colour != 0 {
                        // MaxiCode: all eleven, the light centre r5 wider than its neighbours first.
                        if wantsMaxiCode && count >= 11 && r5 >= r4 && r5 >= r6 && r5 <= 6 * r4 && r5 <= 6 * r6,
                            let m = MaxiCodeReader.evenRings([r1, r2, r3, r4, r6, r7, r8, r9], centre: r5, outer: (r0, r10))
                        {
                            let cx = Double(x &- (r5 &+ r6 &+ r7 &+ r8 &+ r9 &+ r10)) + Double(r5) / 2
                            if let confirmed = maxiCodeReader.confirm(cx, Double(y) + 0.5, ring: m) {
                                BullsEye.merge(confirmed, into: &maxiCode)
                            }
                        }
                    }
                    if x < w { colour = bits[row &+ x] }
                    runStart = x
                    x &+= 1
                }
            }
        }
        // Those whose diagonals cross rings too come first: in a large full-range symbol each
        // crossing of the reference grid is also seen as a bull's-eye, and the symbol's own would
        // come after more of them than are read.
        let rays = aztec.map { aztecReader.diagonalRings($0) >= 3 }
        self.aztec = zip(aztec, rays).sorted { a, b in a.1 != b.1 ? a.1 : a.0.hits > b.0.hits }.map(\.0)
        self.lightAztec = lightAztec.filter { aztecReader.diagonalRings($0, light: true) >= 3 }.sorted { $0.hits > $1.hits }
        self.maxiCode = maxiCode.sorted { $0.hits > $1.hits }
    }
}

extension ReadSession {
    var wantsMaxiCode: Bool { options.symbologies.contains(.maxicode) }

    /// The reduced level, the factor a small one is enlarged by for the bull's-eye searches (1 at
    /// 240 pixels and more), and its scale to work coordinates.
    mutating func bullsEyeLevel() -> (image: GrayImage, factor: Int, scale: (Double, Double))? {
        guard let (image, scale) = level(.reduced) else { return nil }
        let side = max(image.width, image.height)
        return (image, side < 240 ? max(2, 320 / max(side, 1)) : 1, scale)
    }

    /// The bull's-eyes of both symbologies asked for, in the reduced level `image` enlarged by
    /// `factor` under `binarization`, found in one pass when first asked (the Aztec and MaxiCode
    /// readers share it, and the enlarged image).
    mutating func bullsEyes(_ binarization: CodeBinarization, image: GrayImage, factor: Int) -> BullsEyeScan {
        if let made = bullsEyeScans[binarization] { return made }
        let t0 = elapsedMs
        let bin: BinaryImage
        if factor == 1 {
            bin = binarization == .local ? (reducedLocalBinary() ?? binarize(image, binarization)) : binarize(image, binarization)
        } else {
            let source = bullsEyeEnlarged ?? Imaging.upscaled(image, by: factor)
            bullsEyeEnlarged = source
            bin = binarize(source, binarization)
        }
        let t1 = elapsedMs
        let scan = BullsEyeScan(bin, aztec: wantsAztec, maxiCode: wantsMaxiCode)
        if debug {
            debugLog("bull's-eyes: \(scan.aztec.count) Aztec, \(scan.maxiCode.count) MaxiCode, \(binarization), \(bin.width)x\(bin.height), binarised in \(t1 - t0) ms, searched in \(elapsedMs - t1) ms")
        }
        bullsEyeScans[binarization] = scan
        return scan
    }

    /// Reads the symbols of `symbology` (Aztec or MaxiCode) around the strongest `first` bull's-eyes
    /// of the reduced level (small images enlarged first) under a local threshold and, in images
    /// of up to 480 pixels (a symbol filling them has big modules, whose insides a window of a
    /// twelfth of the image takes for background), a global one when the local one read nothing.
    /// `read` decodes the symbol around a bull's-eye: its raw symbol, corners and module size in
    /// the binary image's pixels.
    mutating func readBullsEyes(
        _ symbology: Symbology, first: Int,
        read: (BinaryImage, BullsEye) -> (raw: RawSymbol, corners: [Point], module: Double)?
    ) {
        guard !outOfTime, let (image, factor, scale) = bullsEyeLevel() else { return }
        let started = elapsedMs
        defer { if debug { debugLog("\(symbology): \(String(format: "%.1f", elapsedMs - started)) ms") } }
        let binarizations: [CodeBinarization] = max(image.width, image.height) * factor <= 480 ? [.local, .global] : [.local]
        for binarization in binarizations {
            if outOfTime { break }
            let scan = bullsEyes(binarization, image: image, factor: factor)
            let f = Double(factor)
            var readCount = 0
            func readAll(_ candidates: ArraySlice<BullsEye>, in bin: BinaryImage, light: Bool) {
                for c in candidates {
                    if outOfTime { break }
                    let centre = Point(x: c.x / f * scale.0, y: c.y / f * scale.1)
                    // A bull's-eye inside a symbol read is that symbol's own, or part of its pattern.
                    if found.contains(where: { ($0.raw.symbology == symbology || $0.raw.symbology.isMatrix) && $0.contains(centre) }) { continue }
                    if debug { debugLog("\(symbology) \(light ? "light " : "")bull's-eye at (\(Int(centre.x)),\(Int(centre.y))) ring \(c.ring / f) hits \(c.hits), \(binarization)") }
                    guard let (raw, corners, module) = read(bin, c) else { continue }
                    let work = corners.map { Point(x: $0.x / f * scale.0, y: $0.y / f * scale.1) }
                    add(raw, corners: work, module: module / f * scale.0)
                    readCount += 1
                }
            }
            readAll((symbology == .aztec ? scan.aztec : scan.maxiCode).prefix(first), in: scan.bin, light: false)
            // Light-on-dark Aztec symbols, read in the binary image turned over while no symbol of
            // the symbology is read.
            if symbology == .aztec && readCount == 0 && !scan.lightAztec.isEmpty && !outOfTime {
                readAll(scan.lightAztec.prefix(first), in: scan.bin.inverted(), light: true)
            }
            if readCount > 0 { break }
        }
    }
}
