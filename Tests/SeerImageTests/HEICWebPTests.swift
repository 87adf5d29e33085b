import SeerImage
import Testing

/// The mean of the 8×8 block around (x, y): flat quadrants survive lossy coding there.
private func blockMean(_ image: GrayImage, _ cx: Int, _ cy: Int) -> Int {
    var sum = 0
    for y in (cy - 4)..<(cy + 4) { for x in (cx - 4)..<(cx + 4) { sum += Int(image[x, y]) } }
    return sum / 64
}

/// Whether the four quadrants of the oriented test picture are where a person sees them.
private func quadrantsAsSeen(_ image: GrayImage) -> Bool {
    guard image.width == 48, image.height == 32 else { return false }
    return [(12, 8), (36, 8), (12, 24), (36, 24)].allSatisfy { abs(blockMean(image, $0.0, $0.1) - Int(Patterns.quadrant($0.0, $0.1))) <= 6 }
}

@Suite("Decoding HEIC")
struct HEICDecodeTests {
    @Test(arguments: ["rgb.heic", "rgb-10bit.heic"])
    func lumaPlaneIsTheDrawnLuminance(name: String) throws {
        let image = try Fixtures.decode("heic", name)
        #expect(image.info.format == .heic)
        #expect(image.gray.width == Patterns.width && image.gray.height == Patterns.height)
        let d = difference(image.gray, Patterns.rgbLuma)
        #expect(d.mean < 1.5 && d.max <= 8, "\(d)")
    }

    @Test func rgbOutputMatchesTheDrawing() throws {
        let image = try Fixtures.decode("heic", "rgb.heic", options: DecodeOptions(includeRGB: true))
        let rgb = try #require(image.rgb)
        var total = 0
        for y in 0..<rgb.height {
            for x in 0..<rgb.width {
                let (r, g, b) = Patterns.rgb(x, y), got = rgb[x, y]
                total += abs(Int(got.r) - Int(r)) + abs(Int(got.g) - Int(g)) + abs(Int(got.b) - Int(b))
            }
        }
        #expect(Double(total) / Double(3 * rgb.width * rgb.height) < 3)
        #expect(difference(image.gray, Patterns.rgbLuma).mean < 1.5)
    }

    @Test func alphaCompositesOverWhite() throws {
        let image = try Fixtures.decode("heic", "rgba.heic")
        let d = difference(image.gray) { x, y in Patterns.overWhite(Patterns.rgbLuma(x, y), Patterns.alpha(x, y)) }
        #expect(d.mean < 2, "\(d)")
        let withRGB = try Fixtures.decode("heic", "rgba.heic", options: DecodeOptions(includeRGB: true))
        #expect(difference(withRGB.gray) { image.gray[$0, $1] }.mean < 2)
    }

    @Test func gridTilesAreJoinedAndCropped() throws {
        let image = try Fixtures.decode("heic", "grid.heic")
        #expect(image.info.width == 180 && image.info.height == 100)
        #expect(image.gray.width == 180 && image.gray.height == 100)
        let d = difference(image.gray, Patterns.grid)
        #expect(d.mean < 2.5, "\(d)")
        // Each tile is in its place: the mean error in every tile is small.
        for ty in 0..<2 {
            for tx in 0..<3 {
                var total = 0, n = 0
                for y in (ty * 64)..<min(100, ty * 64 + 64) {
                    for x in (tx * 64)..<min(180, tx * 64 + 64) {
                        total += abs(Int(image.gray[x, y]) - Int(Patterns.grid(x, y)))
                        n += 1
                    }
                }
                #expect(Double(total) / Double(n) < 4, "tile \(tx),\(ty)")
            }
        }
    }

    @Test(arguments: 1...8)
    func irotAndImirTurnThePicture(orientation: Int) throws {
        let image = try Fixtures.decode("heic", "orientation-\(orientation).heic")
        #expect(image.info.orientation.rawValue == orientation)
        #expect(image.info.width == 48 && image.info.height == 32)
        #expect(image.isOriented)
        let asSeen = quadrantsAsSeen(image.gray)
        #expect(asSeen, "orientation \(orientation)")
    }

    @Test(arguments: 1...8)
    func storedGridKeptWhenAsked(orientation: Int) throws {
        let image = try Fixtures.decode("heic", "orientation-\(orientation).heic", options: DecodeOptions(applyOrientation: false))
        #expect(!image.isOriented)
        #expect(image.gray.width == image.info.storedWidth && image.gray.height == image.info.storedHeight)
        // Turning the stored grid as the orientation says gives the picture.
        let asSeen = quadrantsAsSeen(image.gray.oriented(image.info.orientation))
        #expect(asSeen)
    }

    @Test func exifOrientationAloneIsApplied() throws {
        let image = try Fixtures.decode("heic", "exif-6.heic")
        #expect(image.info.orientation == .right)
        #expect(image.info.storedWidth == 32 && image.info.storedHeight == 48)
        let asSeen = quadrantsAsSeen(image.gray)
        #expect(asSeen)
    }

    @Test func exifBesideIrotDoesNotTurnTwice() throws {
        let image = try Fixtures.decode("heic", "irot-and-exif-6.heic")
        #expect(image.info.orientation == .right)
        let asSeen = quadrantsAsSeen(image.gray)
        #expect(asSeen)
    }

    @Test func headerOnlyInfo() throws {
        let info = try ImageDecoder.info(contentsOf: Fixtures.path("heic", "orientation-8.heic"))
        #expect(info.format == .heic && info.orientation == .left)
        #expect(info.storedWidth == 32 && info.storedHeight == 48 && info.width == 48)
        let grid = try ImageDecoder.info(contentsOf: Fixtures.path("heic", "grid.heic"))
        #expect(grid.width == 180 && grid.height == 100)
    }

    @Test func scaledDecodeIsAreaAveraged() throws {
        let full = try Fixtures.decode("heic", "grid.heic")
        let half = try Fixtures.decode("heic", "grid.heic", options: DecodeOptions(scale: 2))
        #expect(half.gray.width == 90 && half.gray.height == 50)
        let reduced = full.gray.downscaled(by: 2)
        #expect(difference(half.gray) { reduced[$0, $1] }.max == 0)
    }
}

@Suite("Decoding WebP")
struct WebPDecodeTests {
    @Test(arguments: ["lossy.webp", "lossless.webp"])
    func decodesToTheDrawnLuminance(name: String) throws {
        let image = try Fixtures.decode("webp", name)
        #expect(image.info.format == .webp)
        #expect(image.gray.width == Patterns.width && image.gray.height == Patterns.height)
        let d = difference(image.gray, Patterns.rgbLuma)
        // Lossless: exact RGB, so at most BT.601 rounding apart from the drawn luminance.
        #expect(d.mean < (name == "lossless.webp" ? 0.6 : 1.5) && d.max <= (name == "lossless.webp" ? 1 : 8), "\(d)")
    }

    @Test func losslessRGBIsExact() throws {
        let image = try Fixtures.decode("webp", "lossless.webp", options: DecodeOptions(includeRGB: true))
        let rgb = try #require(image.rgb)
        var mismatches = 0
        for y in 0..<rgb.height {
            for x in 0..<rgb.width where rgb[x, y] != Patterns.rgb(x, y) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    @Test(arguments: ["alpha-lossless.webp", "alpha-lossy.webp"])
    func alphaCompositesOverWhite(name: String) throws {
        let image = try Fixtures.decode("webp", name)
        let d = difference(image.gray) { x, y in Patterns.overWhite(Patterns.rgbLuma(x, y), Patterns.alpha(x, y)) }
        #expect(d.mean < (name == "alpha-lossless.webp" ? 0.6 : 2), "\(d)")
    }

    @Test func animationGivesItsFirstFrame() throws {
        let image = try Fixtures.decode("webp", "animated.webp")
        #expect(image.gray.width == Patterns.width && image.gray.height == Patterns.height)
        #expect(difference(image.gray, Patterns.rgbLuma).max <= 1)
    }

    @Test func exifOrientationIsApplied() throws {
        let image = try Fixtures.decode("webp", "exif-6.webp")
        #expect(image.info.orientation == .right)
        let asSeen = quadrantsAsSeen(image.gray)
        #expect(asSeen)
        let info = try ImageDecoder.info(contentsOf: Fixtures.path("webp", "exif-6.webp"))
        #expect(info.storedWidth == 32 && info.width == 48)
    }
}

/// Inputs found by fuzzing (scripts/fuzz), kept in TestImages/fuzz/: each must give its error at once.
@Suite("Fuzzing regressions")
struct FuzzRegressionTests {
    static let cases: [(String, ImageError.Code)] = [
        // A grid declaring a 918-megapixel output under an `ispe` of 48×32: libheif 1.15 decoded
        // the whole grid (35 s, 2 GB) before the sizes were compared.
        ("heic-grid-output-30312x30307.heic", .corrupt),
        // An alpha plane that is a grid whose tile is the image it is the alpha of: libheif 1.15
        // recursed, starting a thread per level, until it could start no more and the process died.
        ("heic-alpha-grid-cycle.heic", .corrupt),
        // The same cycle, with the `auxl` reference's box declaring 4 GB: libheif reads references
        // one after another whatever their boxes' sizes, so the walk that looks for cycles must too.
        ("heic-alpha-grid-cycle-oversized-box.heic", .corrupt),
        // Made beside that finding: the cycle inside an `iref` box that declares 2 GB.
        ("heic-alpha-grid-cycle-oversized-iref.heic", .corrupt),
        // A grid declaring 14 441×26 990 under an `ispe` of 64×64, behind a property association box
        // whose entries run off the end of the file: the walk over the associations gave up and
        // skipped the grids; libheif decoded 390 megapixels (10 s, 2.3 GB).
        ("heic-grid-output-behind-damaged-ipma.heic", .corrupt),
        // A grid that lists itself as one of its tiles.
        ("heic-grid-tile-is-itself.heic", .corrupt),
    ]

    @Test(arguments: cases)
    func refusedBeforeAnyWork(name: String, code: ImageError.Code) throws {
        let path = Fixtures.path("fuzz", name)
        let error = #expect(throws: ImageError.self) { try ImageDecoder.decode(contentsOf: path) }
        #expect(error?.code == code)
    }
}
