import SeerImage
import Testing

@Suite("Decoding PNG")
struct PNGDecodeTests {
    @Test func grey8IsExact() throws {
        let image = try Fixtures.decode("decode", "gray8.png")
        #expect(image.info.format == .png)
        #expect(image.gray.width == Patterns.width && image.gray.height == Patterns.height)
        #expect(difference(image.gray, Patterns.gray).max == 0)
    }

    @Test(arguments: [1, 2, 4])
    func lowBitDepthGreyExpands(bits: Int) throws {
        let image = try Fixtures.decode("decode", "gray\(bits).png")
        #expect(difference(image.gray) { Patterns.grayLevels($0, $1, bits: bits) }.max == 0)
    }

    @Test func grey16ScalesToEightBits() throws {
        let image = try Fixtures.decode("decode", "gray16.png")
        // libpng's accurate scaling: round(v × 255 / 65535).
        let d = difference(image.gray) { x, y in
            UInt8((Double(Patterns.gray16(x, y)) * 255 / 65535).rounded())
        }
        #expect(d.max <= 1)
    }

    @Test func greyAlphaCompositesOverWhite() throws {
        let image = try Fixtures.decode("decode", "gray-alpha.png")
        let d = difference(image.gray) { x, y in Patterns.overWhite(Patterns.gray(x, y), Patterns.alpha(x, y)) }
        #expect(d.max == 0)
    }

    @Test(arguments: ["rgb8.png", "rgb16.png", "rgb8-interlaced.png"])
    func rgbDecodesExactly(name: String) throws {
        let image = try Fixtures.decode("decode", name, options: DecodeOptions(includeRGB: true))
        let rgb = try #require(image.rgb)
        var mismatches = 0
        for y in 0..<rgb.height {
            for x in 0..<rgb.width where rgb[x, y] != Patterns.rgb(x, y) { mismatches += 1 }
        }
        #expect(mismatches == 0)
        let d = difference(image.gray) { x, y in
            let (r, g, b) = Patterns.rgb(x, y)
            return Luma.bt601(r, g, b)
        }
        #expect(d.max == 0)
    }

    @Test func greyInterlacedMatchesProgressiveOrder() throws {
        let image = try Fixtures.decode("decode", "gray8-interlaced.png")
        #expect(difference(image.gray, Patterns.gray).max == 0)
    }

    @Test func rgbaCompositesOverWhite() throws {
        let image = try Fixtures.decode("decode", "rgba8.png", options: DecodeOptions(includeRGB: true))
        let rgb = try #require(image.rgb)
        var worst = 0
        for y in 0..<rgb.height {
            for x in 0..<rgb.width {
                let (r, g, b) = Patterns.rgb(x, y), a = Patterns.alpha(x, y)
                let got = rgb[x, y]
                worst = max(
                    worst, abs(Int(got.r) - Int(Patterns.overWhite(r, a))),
                    abs(Int(got.g) - Int(Patterns.overWhite(g, a))), abs(Int(got.b) - Int(Patterns.overWhite(b, a))))
            }
        }
        #expect(worst == 0)
    }

    @Test func paletteExpands() throws {
        let image = try Fixtures.decode("decode", "palette.png", options: DecodeOptions(includeRGB: true))
        let rgb = try #require(image.rgb)
        var mismatches = 0
        for y in 0..<rgb.height {
            for x in 0..<rgb.width where rgb[x, y] != Patterns.palette(Patterns.paletteIndex(x, y)) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    @Test func paletteTransparencyCompositesOverWhite() throws {
        let image = try Fixtures.decode("decode", "palette-trns.png", options: DecodeOptions(includeRGB: true))
        let rgb = try #require(image.rgb)
        var mismatches = 0
        for y in 0..<rgb.height {
            for x in 0..<rgb.width {
                let i = Patterns.paletteIndex(x, y), a = Patterns.paletteAlpha[i]
                let (r, g, b) = Patterns.palette(i)
                let want = (Patterns.overWhite(r, a), Patterns.overWhite(g, a), Patterns.overWhite(b, a))
                if rgb[x, y] != want { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
    }

    @Test func formatComesFromBytesNotName() throws {
        let image = try Fixtures.decode("decode", "png-named.jpg")
        #expect(image.info.format == .png)
        #expect(difference(image.gray, Patterns.gray).max == 0)
    }
}

@Suite("Decoding JPEG")
struct JPEGDecodeTests {
    @Test(arguments: ["baseline-420.jpg", "baseline-422.jpg", "baseline-444.jpg", "progressive.jpg", "restart.jpg"])
    func colourVariantsDecodeToTheDrawnLuminance(name: String) throws {
        let image = try Fixtures.decode("decode", name)
        #expect(image.info.format == .jpeg)
        #expect(image.gray.width == Patterns.width && image.gray.height == Patterns.height)
        let d = difference(image.gray) { x, y in
            let (r, g, b) = Patterns.rgb(x, y)
            return Luma.bt601(r, g, b)
        }
        // Lossy at quality 95: luminance of a smooth ramp comes back within a few levels.
        #expect(d.mean < 1.5)
        #expect(d.max <= 8)
    }

    @Test(arguments: ["baseline-444.jpg", "progressive.jpg"])
    func rgbOutputMatchesTheDrawing(name: String) throws {
        let image = try Fixtures.decode("decode", name, options: DecodeOptions(includeRGB: true))
        let rgb = try #require(image.rgb)
        var total = 0
        for y in 0..<rgb.height {
            for x in 0..<rgb.width {
                let got = rgb[x, y], (r, g, b) = Patterns.rgb(x, y)
                total += abs(Int(got.r) - Int(r)) + abs(Int(got.g) - Int(g)) + abs(Int(got.b) - Int(b))
            }
        }
        #expect(Double(total) / Double(rgb.width * rgb.height * 3) < 2.5)
    }

    @Test func greyscaleJPEG() throws {
        let image = try Fixtures.decode("decode", "grayscale.jpg")
        let d = difference(image.gray, Patterns.gray)
        #expect(d.mean < 2.5)
    }

    @Test func adobeCMYKConvertsToTheDrawnColours() throws {
        let image = try Fixtures.decode("decode", "cmyk-adobe.jpg")
        let d = difference(image.gray) { x, y in
            let (r, g, b) = Patterns.rgb(x, y)
            return Luma.bt601(r, g, b)
        }
        #expect(d.mean < 3)
    }

    @Test(arguments: [2, 4, 8])
    func dctScalingReducesTheImage(scale: Int) throws {
        let full = try Fixtures.decode("decode", "baseline-444.jpg")
        let scaled = try Fixtures.decode("decode", "baseline-444.jpg", options: DecodeOptions(scale: scale))
        #expect(scaled.gray.width == (Patterns.width + scale - 1) / scale)
        #expect(scaled.gray.height == (Patterns.height + scale - 1) / scale)
        #expect(scaled.scaleX == Double(Patterns.width) / Double(scaled.gray.width))
        // The reduced image is the area mean of the full one, give or take the DCT's rounding.
        let reference = full.gray.downscaled(by: scale)
        #expect(difference(scaled.gray) { reference[$0, $1] }.mean < 3)
    }

    @Test func fastDCTStaysClose() throws {
        let exact = try Fixtures.decode("decode", "baseline-420.jpg")
        let fast = try Fixtures.decode("decode", "baseline-420.jpg", options: DecodeOptions(fastDCT: true))
        #expect(difference(fast.gray) { exact.gray[$0, $1] }.mean < 2)
    }
}

@Suite("EXIF orientation")
struct OrientationTests {
    static let cases: [(String, Int)] = (1...8).flatMap { [("jpeg-\($0).jpg", $0), ("png-\($0).png", $0)] }

    @Test(arguments: cases)
    func appliedSoThePictureIsAsSeen(name: String, orientation: Int) throws {
        let image = try Fixtures.decode("orientation", name)
        #expect(image.info.orientation.rawValue == orientation)
        #expect(image.info.width == 48 && image.info.height == 32)
        #expect(image.gray.width == 48 && image.gray.height == 32)
        // Compare quadrant means, away from the edges where JPEG blurs the step.
        for (qx, qy) in [(12, 8), (36, 8), (12, 24), (36, 24)] {
            var sum = 0
            for y in (qy - 4)..<(qy + 4) { for x in (qx - 4)..<(qx + 4) { sum += Int(image.gray[x, y]) } }
            #expect(abs(sum / 64 - Int(Patterns.quadrant(qx, qy))) <= 4, "quadrant at \(qx),\(qy) of \(name)")
        }
    }

    @Test(arguments: cases)
    func storedGridKeptWhenAsked(name: String, orientation: Int) throws {
        let image = try Fixtures.decode("orientation", name, options: DecodeOptions(applyOrientation: false))
        let swaps = orientation >= 5
        #expect(image.gray.width == (swaps ? 32 : 48))
        #expect(image.info.storedWidth == image.gray.width)
        #expect(!image.isOriented)
    }

    @Test func headerOnlyInfoReportsOrientation() throws {
        let info = try ImageDecoder.info(contentsOf: Fixtures.path("orientation", "jpeg-6.jpg"))
        #expect(info.orientation == .right)
        #expect(info.storedWidth == 32 && info.storedHeight == 48)
        #expect(info.width == 48 && info.height == 32)
    }
}

@Suite("Bad input")
struct MalformedTests {
    static let cases: [(String, ImageError.Code)] = [
        ("empty.png", .empty),
        ("text.jpg", .notAnImage),
        ("truncated.jpg", .truncated),
        ("truncated.png", .truncated),
        ("bad-zlib.png", .corrupt),
        ("bad-crc.png", .corrupt),
        ("bad-huffman.jpg", .corrupt),
        ("huge.png", .tooLarge),
        ("huge.jpg", .tooLarge),
        ("image.gif", .unsupportedFormat),
        ("image.avif", .unsupportedFormat),
        ("image.bmp", .unsupportedFormat),
        ("image.tiff", .unsupportedFormat),
        ("image.heic", .corrupt),
        ("truncated.heic", .truncated),
        ("bad-hevc.heic", .corrupt),
        ("bad-hvcc.heic", .corrupt),
        ("huge.heic", .tooLarge),
        ("truncated.webp", .truncated),
        ("huge.webp", .tooLarge),
    ]

    @Test(arguments: cases)
    func refusedWithTheRightError(name: String, code: ImageError.Code) throws {
        let path = Fixtures.path("malformed", name)
        let error = #expect(throws: ImageError.self) { try ImageDecoder.decode(contentsOf: path) }
        #expect(error?.code == code)
        #expect(error?.source == path)
        #expect(error?.description.hasPrefix(path) == true)
    }

    @Test func unsupportedFormatsAreNamed() throws {
        for (name, word) in [("image.gif", "GIF"), ("image.avif", "AVIF"), ("image.bmp", "BMP")] {
            let error = #expect(throws: ImageError.self) { try ImageDecoder.decode(contentsOf: Fixtures.path("malformed", name)) }
            #expect(error?.message.contains(word) == true)
        }
    }

    @Test func pixelLimitIsConfigurable() throws {
        let path = Fixtures.path("decode", "rgb8.png")
        let error = #expect(throws: ImageError.self) {
            try ImageDecoder.decode(contentsOf: path, options: DecodeOptions(pixelLimit: 1000))
        }
        #expect(error?.code == .tooLarge)
        #expect(try ImageDecoder.decode(contentsOf: path, options: DecodeOptions(pixelLimit: 64 * 48)).gray.count == 64 * 48)
    }

    @Test func missingFileIsUnreadable() {
        let error = #expect(throws: ImageError.self) { try ImageDecoder.decode(contentsOf: "/nonexistent/photo.jpg") }
        #expect(error?.code == .unreadable)
    }

    @Test func directoryIsUnreadable() {
        let error = #expect(throws: ImageError.self) { try ImageDecoder.decode(contentsOf: Fixtures.root) }
        #expect(error?.code == .unreadable)
    }

    /// Every prefix of a good file is refused (or, for the few prefixes that still hold a complete
    /// image, decoded in full): never a crash and never a partial image.
    @Test(arguments: ["decode/baseline-420.jpg", "decode/progressive.jpg", "decode/rgb8.png", "decode/gray8-interlaced.png", "heic/rgb.heic", "webp/lossy.webp", "webp/lossless.webp"])
    func everyTruncationIsHandled(name: String) throws {
        let bytes = try ImageDecoder.readFile("\(Fixtures.root)/\(name)")
        for length in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 97)) {
            do {
                let image = try ImageDecoder.decode(Array(bytes.prefix(length)))
                #expect(image.gray.count == Patterns.width * Patterns.height)
            } catch let error as ImageError {
                #expect([.empty, .notAnImage, .truncated, .corrupt].contains(error.code), "\(length): \(error)")
            }
        }
    }

    /// Random byte flips never crash or hang the decoders.
    @Test(arguments: ["decode/baseline-420.jpg", "decode/progressive.jpg", "decode/rgb8.png", "decode/palette-trns.png", "heic/grid.heic", "webp/lossy.webp", "webp/animated.webp"])
    func corruptedBytesAreHandled(name: String) throws {
        let original = try ImageDecoder.readFile("\(Fixtures.root)/\(name)")
        var generator = SplitMix64(seed: 0x5EE5)
        for _ in 0..<150 {
            var bytes = original
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                let i = Int(generator.next() % UInt64(bytes.count))
                bytes[i] = UInt8(truncatingIfNeeded: generator.next())
            }
            do {
                let image = try ImageDecoder.decode(bytes, options: DecodeOptions(pixelLimit: 1 << 22))
                #expect(image.gray.count == image.gray.width * image.gray.height)
            } catch let error as ImageError {
                #expect(error.code != .unreadable)
            }
        }
    }
}

/// A small deterministic generator, so failures reproduce.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
