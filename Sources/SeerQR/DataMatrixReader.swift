internal import CDmtx
import SeerImage

/// One DataMatrix symbol read: its data stream and its outline in the scanned image's pixels
/// (top-left, top-right, bottom-right, bottom-left as the symbol reads).
struct DataMatrixRead {
    var stream: DataMatrixStream
    /// The symbol's codewords (data then error words, interleaved), and how: its blocks and the
    /// error words of each.
    var codewords: [UInt8]
    var blocks: Int
    var errorWords: Int
    var corners: [Point]
    /// Pixels per module along the symbol's long side.
    var module: Double
}

/// What one scan of an image found: the symbols read, and how many more regions libdmtx located
/// (an L-shaped finder with its clock tracks) without reading them.
struct DataMatrixScan {
    var symbols: [DataMatrixRead] = []
    var unread = 0
}

/// Reads DataMatrix ECC 200 symbols with libdmtx (Debian's libdmtx 0.7.7): libdmtx finds each
/// symbol's L-shaped finder and clock tracks, samples its modules and corrects its Reed–Solomon
/// blocks; Seer checks the corrected blocks again (every syndrome zero) and decodes the data
/// codewords itself (``DataMatrixStream``), strictly, so that ECI, FNC1, structured append and the
/// macros come out as encoded and a stream with an undefined codeword is no reading at all.
enum DataMatrixReader {
    /// How a scan looks.
    struct Settings {
        /// libdmtx samples every `shrink`-th pixel while it looks for finders (1: every pixel).
        var shrink = 1
        /// Pixels between libdmtx's scan lines (at the shrunk resolution).
        var scanGap = 1
        /// The least contrast (0–100) of an edge libdmtx follows.
        var edgeThreshold = 10
        /// How long libdmtx may look (wall clock; libdmtx has no other clock).
        var timeoutMilliseconds = 50.0
        /// Read the image mirrored (a symbol printed or photographed back to front).
        var mirrored = false
        /// How much longer the scan may go on once a symbol is read.
        var afterReadMilliseconds = 4.0
        /// At most this many regions are decoded.
        var maxRegions = 16
    }

    /// libdmtx's clock (wall time, to the microsecond) `milliseconds` from now.
    static func time(in milliseconds: Double) -> DmtxTime {
        var t = dmtxTimeNow()
        let usec = Int(t.usec) + Int(milliseconds * 1000)
        t.sec += usec / 1_000_000
        t.usec = UInt(usec % 1_000_000)
        return t
    }

    /// Scans `image` for DataMatrix symbols.
    static func scan(_ image: GrayImage, _ settings: Settings) -> DataMatrixScan {
        var result = DataMatrixScan()
        guard image.width >= 8, image.height >= 8,
            let dmtxImage = DmtxImageOwner(image, flipY: settings.mirrored),
            let decoder = DmtxDecoderOwner(dmtxImage, shrink: settings.shrink)
        else { return result }
        decoder.set(DmtxPropScanGap, settings.scanGap)
        decoder.set(DmtxPropEdgeThresh, settings.edgeThreshold)
        var timeout = Self.time(in: settings.timeoutMilliseconds)
        var regions = 0
        while regions < settings.maxRegions, !Cancellation.requested {
            guard let region = decoder.nextRegion(timeout: &timeout) else { break }
            regions += 1
            guard let read = decoder.read(region, imageHeight: image.height, mirrored: settings.mirrored) else {
                result.unread += 1
                continue
            }
            result.symbols.append(read)
            // Once a symbol is read, the rest of the image gets a little more time: a second symbol
            // beside it is found in it, and the scan of a picture that one symbol fills ends soon.
            let soon = Self.time(in: settings.afterReadMilliseconds)
            if soon.sec < timeout.sec || (soon.sec == timeout.sec && soon.usec < timeout.usec) { timeout = soon }
        }
        return result
    }
}

/// Owns one libdmtx image (`DmtxImage`) and the grey pixels it points at (libdmtx keeps a pointer,
/// not a copy).
final class DmtxImageOwner {
    let handle: UnsafeMutablePointer<DmtxImage>
    private let pixels: UnsafeMutableBufferPointer<UInt8>
    let width: Int
    let height: Int

    /// With `flipY` libdmtx's rows run top-down, which shows it the image mirrored: its own
    /// convention has the first row at the bottom.
    init?(_ image: GrayImage, flipY: Bool) {
        let pixels = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: image.pixels.count)
        _ = pixels.initialize(from: image.pixels)
        guard let handle = dmtxImageCreate(pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(DmtxPack8bppK.rawValue))
        else {
            pixels.deallocate()
            return nil
        }
        self.handle = handle
        self.pixels = pixels
        self.width = image.width
        self.height = image.height
        dmtxImageSetProp(handle, Int32(DmtxPropImageFlip.rawValue), Int32(flipY ? DmtxFlipY.rawValue : DmtxFlipNone.rawValue))
    }

    deinit {
        var h: UnsafeMutablePointer<DmtxImage>? = handle
        dmtxImageDestroy(&h)
        pixels.deallocate()
    }
}

/// Owns one libdmtx decoder (`DmtxDecode`) over an image it keeps alive.
final class DmtxDecoderOwner {
    let handle: UnsafeMutablePointer<DmtxDecode>
    let image: DmtxImageOwner
    let shrink: Int

    init?(_ image: DmtxImageOwner, shrink: Int) {
        guard let handle = dmtxDecodeCreate(image.handle, Int32(shrink)) else { return nil }
        self.handle = handle
        self.image = image
        self.shrink = shrink
    }

    deinit {
        var h: UnsafeMutablePointer<DmtxDecode>? = handle
        dmtxDecodeDestroy(&h)
    }

    func set(_ property: DmtxProperty, _ value: Int) {
        dmtxDecodeSetProp(handle, Int32(property.rawValue), Int32(value))
    }

    /// The next region libdmtx locates, or nil when the scan is done or out of time.
    func nextRegion(timeout: inout DmtxTime) -> DmtxRegionOwner? {
        guard let region = dmtxRegionFindNext(handle, &timeout) else { return nil }
        return DmtxRegionOwner(region)
    }

    /// Decodes a located region: libdmtx's sampling and error correction, then Seer's check of the
    /// corrected blocks and its decoding of the data. Nil when any step fails.
    func read(_ region: DmtxRegionOwner, imageHeight: Int, mirrored: Bool) -> DataMatrixRead? {
        guard let message = DmtxMessageOwner(dmtxDecodeMatrixRegion(handle, region.handle, DmtxUndefined)) else { return nil }
        let sizeIndex = region.handle.pointee.sizeIdx
        func attribute(_ a: DmtxSymAttribute) -> Int { Int(dmtxGetSymbolAttribute(Int32(a.rawValue), sizeIndex)) }
        let dataWords = attribute(DmtxSymAttribSymbolDataWords)
        let blocks = attribute(DmtxSymAttribInterleavedBlocks)
        let errorWords = attribute(DmtxSymAttribBlockErrorWords)
        let total = dataWords + errorWords * blocks
        guard dataWords > 0, blocks > 0, errorWords > 0, Int(message.handle.pointee.codeSize) == total,
            let code = message.handle.pointee.code
        else { return nil }
        let codewords = Array(UnsafeBufferPointer(start: code, count: total))
        let sizes = (0..<blocks).map { Int(dmtxGetBlockDataSize(sizeIndex, Int32($0))) }
        guard sizes.reduce(0, +) == dataWords,
            DataMatrixCheck.isValid(codewords, dataWords: dataWords, errorWordsPerBlock: errorWords, dataSizes: sizes),
            case .success(let stream) = DataMatrixStream.decode(Array(codewords[0..<dataWords]))
        else { return nil }
        // The fitted grid's unit square, mapped to the image: (0, 0) is the corner of the L.
        let m = region.handle.pointee.fit2raw
        let matrix = [[m.0.0, m.0.1, m.0.2], [m.1.0, m.1.1, m.1.2], [m.2.0, m.2.1, m.2.2]]
        let s = Double(shrink)
        func raw(_ u: Double, _ v: Double) -> Point {
            let w = u * matrix[0][2] + v * matrix[1][2] + matrix[2][2]
            let x = (u * matrix[0][0] + v * matrix[1][0] + matrix[2][0]) / w
            let y = (u * matrix[0][1] + v * matrix[1][1] + matrix[2][1]) / w
            // libdmtx counts rows from the bottom unless flipped (the mirrored scan).
            let px = (x + 0.5) * s
            let py = mirrored ? (y + 0.5) * s : Double(imageHeight) - (y + 0.5) * s
            return Point(x: px, y: py)
        }
        // As the symbol reads: the L's corner is its bottom-left.
        let corners = [raw(0, 1), raw(1, 1), raw(1, 0), raw(0, 0)]
        // Pixels per module: each side over its count of modules.
        func length(_ a: Point, _ b: Point) -> Double { ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot() }
        let columns = Double(max(1, region.handle.pointee.symbolCols)), rows = Double(max(1, region.handle.pointee.symbolRows))
        let module = (length(corners[0], corners[1]) / columns + length(corners[0], corners[3]) / rows) / 2
        return DataMatrixRead(stream: stream, codewords: codewords, blocks: blocks, errorWords: errorWords, corners: corners, module: module)
    }
}

/// Owns one region libdmtx located (`DmtxRegion`).
final class DmtxRegionOwner {
    let handle: UnsafeMutablePointer<DmtxRegion>

    init(_ handle: UnsafeMutablePointer<DmtxRegion>) { self.handle = handle }

    deinit {
        var h: UnsafeMutablePointer<DmtxRegion>? = handle
        dmtxRegionDestroy(&h)
    }
}

/// Owns one decoded libdmtx message (`DmtxMessage`).
final class DmtxMessageOwner {
    let handle: UnsafeMutablePointer<DmtxMessage>

    init?(_ handle: UnsafeMutablePointer<DmtxMessage>?) {
        guard let handle else { return nil }
        self.handle = handle
    }

    deinit {
        var h: UnsafeMutablePointer<DmtxMessage>? = handle
        dmtxMessageDestroy(&h)
    }
}

extension ReadSession {
    var wantsDataMatrix: Bool { options.symbologies.contains(.datamatrix) }

    /// A reduced level of at most this side squared in pixels is read as a small picture: enlarged
    /// to a long side of about ``dataMatrixSmallTarget`` pixels with a light margin, since libdmtx
    /// needs a few pixels per module and a quiet zone to follow a symbol's edges.
    static let dataMatrixSmallSide = 400
    static let dataMatrixSmallTarget = 300
    /// libdmtx's time on a small picture: a millisecond for every ``dataMatrixPixelsPerMillisecond``
    /// of its pixels before enlarging, within 1–4 ms: the tune half's symbols that libdmtx reads at
    /// all it reads within that (as within the 2–40 ms tried first), and a picture with none keeps it
    /// busy for the whole allowance.
    static let dataMatrixPixelsPerMillisecond = 10000
    /// On a larger photo libdmtx looks at a long side of about ``dataMatrixLargeSide`` pixels for a
    /// fiftieth of the time the read has taken so far (at least 0.3 ms): its scan goes from coarse
    /// to fine, so a symbol large in the photo is met first. A twentieth read no more of the tune
    /// half's DataMatrix photos and cost a photo with no code more (docs/codes.md).
    static let dataMatrixLargeShare = 0.02
    static let dataMatrixLargeSide = 256

    /// Reads DataMatrix symbols on the reduced level, while time is left: libdmtx over the level (a
    /// small one enlarged), then, only where it located a symbol it could not read, the level mirrored.
    mutating func readDataMatrix() {
        guard wantsDataMatrix, !outOfTime, let (reduced, scale) = level(.reduced) else { return }
        let left = Double(options.timeBudgetMilliseconds) - elapsedMs
        guard left > 0 else { return }
        let side = max(reduced.width, reduced.height)
        // A caller who gives the read more time than the preset's gives libdmtx more in proportion.
        let stretch = max(1, Double(options.timeBudgetMilliseconds) / Double(options.preset.defaultBudgetMilliseconds))
        var settings = DataMatrixReader.Settings()
        var image = reduced
        // Image pixels = (scanned pixels − margin) / factor.
        var factor = 1, margin = 0
        if reduced.width * reduced.height <= Self.dataMatrixSmallSide * Self.dataMatrixSmallSide {
            factor = max(1, min(8, Self.dataMatrixSmallTarget / side))
            margin = 2 * factor
            if factor > 1 { image = Self.enlarged(reduced, by: factor, margin: margin) }
            let cap = min(4, max(1, Double(reduced.width * reduced.height) / Double(Self.dataMatrixPixelsPerMillisecond)))
            settings.timeoutMilliseconds = min(left, cap * stretch)
        } else {
            settings.shrink = max(2, side / Self.dataMatrixLargeSide)
            settings.timeoutMilliseconds = min(left, max(0.3 * stretch, elapsedMs * Self.dataMatrixLargeShare))
        }
        let toLevel = { (p: Point) in Point(x: (p.x - Double(margin)) / Double(factor), y: (p.y - Double(margin)) / Double(factor)) }
        let scan = DataMatrixReader.scan(image, settings)
        if debug { debugLog("datamatrix on \(image.width)x\(image.height) shrink \(settings.shrink): \(scan.symbols.count) read, \(scan.unread) located unread") }
        addDataMatrix(scan.symbols, toLevel: toLevel, factor: factor, scale: scale)
        if scan.unread > 0, !outOfTime {
            settings.mirrored = true
            let mirrored = DataMatrixReader.scan(image, settings)
            if debug { debugLog("datamatrix mirrored: \(mirrored.symbols.count) read") }
            addDataMatrix(mirrored.symbols, toLevel: toLevel, factor: factor, scale: scale)
        }
    }

    /// `image` enlarged `factor` times (each pixel a square block) inside a white margin.
    static func enlarged(_ image: GrayImage, by factor: Int, margin: Int) -> GrayImage {
        let w = image.width, h = image.height
        return image.pixels.withUnsafeBufferPointer { p in
            GrayImage(width: w * factor + 2 * margin, height: h * factor + 2 * margin) { x, y in
                let sx = x - margin, sy = y - margin
                guard sx >= 0, sy >= 0, sx < w * factor, sy < h * factor else { return 255 }
                return p[(sy / factor) * w + sx / factor]
            }
        }
    }

    mutating func addDataMatrix(_ symbols: [DataMatrixRead], toLevel: (Point) -> Point, factor: Int, scale: (Double, Double)) {
        for s in symbols {
            if debug {
                debugLog("decoder input \(DecoderInput.dataMatrixSymbol(codewords: s.codewords, blocks: s.blocks, errorWords: s.errorWords).hex)")
                debugLog("decoder input \(DecoderInput.dataMatrix(codewords: Array(s.codewords.prefix(s.codewords.count - s.blocks * s.errorWords))).hex)")
            }
            let corners = s.corners.map { c in
                let p = toLevel(c)
                return Point(x: p.x * scale.0, y: p.y * scale.1)
            }
            var raw = RawSymbol(symbology: .datamatrix, bytes: s.stream.bytes, points: [], quality: 1, isGS1: s.stream.gs1)
            raw.dataMatrix = s.stream
            add(raw, corners: corners, module: s.module / Double(factor) * (scale.0 + scale.1) / 2)
        }
    }
}
