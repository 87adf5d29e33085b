#if canImport(Glibc)
import Glibc
#endif
import SeerImage
import Testing

@Suite("Image operations")
struct OperationsTests {
    let image = GrayImage(width: 5, height: 3) { x, y in UInt8(y * 10 + x) }

    @Test func rotationsMoveCorners() {
        let cw = image.rotatedClockwise()
        #expect(cw.width == 3 && cw.height == 5)
        #expect(cw[2, 0] == image[0, 0])  // top-left goes to top-right
        #expect(cw[0, 0] == image[0, 2])  // bottom-left goes to top-left
        let ccw = image.rotatedCounterClockwise()
        #expect(ccw[0, 4] == image[0, 0])  // top-left goes to bottom-left
        #expect(image.rotated180()[4, 2] == image[0, 0])
        #expect(cw.rotatedCounterClockwise() == image)
        #expect(image.rotated180().rotated180() == image)
        #expect(cw.rotatedClockwise() == image.rotated180())
    }

    @Test(arguments: Orientation.allCases)
    func orientationsAreTheEightSymmetries(orientation: Orientation) {
        let turned = image.oriented(orientation)
        #expect((turned.width, turned.height) == (orientation.swapsDimensions ? (3, 5) : (5, 3)))
        #expect(turned.pixels.sorted() == image.pixels.sorted())
        // Each orientation gives a different arrangement.
        let others = Orientation.allCases.filter { $0 != orientation }.map { image.oriented($0) }
        #expect(!others.contains(turned))
    }

    @Test func cropClipsToTheImage() {
        let c = image.cropped(x: 3, y: 1, width: 10, height: 10)
        #expect(c.width == 2 && c.height == 2)
        #expect(c[0, 0] == image[3, 1] && c[1, 1] == image[4, 2])
        #expect(image.cropped(x: 9, y: 9, width: 2, height: 2).count == 0)
    }

    @Test func boxDownscaleAveragesBlocks() {
        let big = GrayImage(width: 4, height: 4) { x, y in x < 2 ? (y < 2 ? 0 : 100) : (y < 2 ? 200 : 255) }
        let small = big.downscaled(by: 2)
        #expect(small.pixels == [0, 200, 100, 255])
        let odd = GrayImage(width: 3, height: 1, pixels: [10, 20, 90]).downscaled(by: 2)
        #expect(odd.pixels == [15, 90])  // the partial edge block averages what it covers
    }

    @Test func areaResizeKeepsTheMeanAndSize() {
        let ramp = GrayImage(width: 100, height: 60) { x, _ in UInt8(x * 2) }
        let r = ramp.resized(width: 30, height: 20)
        #expect(r.width == 30 && r.height == 20)
        let mean = { (g: GrayImage) in Double(g.pixels.reduce(0) { $0 + Int($1) }) / Double(g.count) }
        #expect(abs(mean(r) - mean(ramp)) < 1)
        #expect(r[0, 0] < r[29, 0])
        #expect(ramp.resized(width: 100, height: 60) == ramp)
    }

    @Test func invertSwapsLightAndDark() {
        #expect(GrayImage(width: 2, height: 1, pixels: [0, 200]).inverted().pixels == [255, 55])
    }

    @Test func rgbToGreyUsesBT601() {
        let rgb = RGBImage(width: 3, height: 1, pixels: [255, 0, 0, 0, 255, 0, 0, 0, 255])
        #expect(rgb.gray.pixels == [76, 150, 29])
        #expect(RGBImage(GrayImage(width: 1, height: 1, pixels: [7])).pixels == [7, 7, 7])
    }
}

@Suite("PNG writing")
struct PNGWriterTests {
    @Test func greyRoundTrips() throws {
        let image = GrayImage(width: 37, height: 23) { x, y in UInt8((x * 7 + y * 11) % 256) }
        let back = try ImageDecoder.decode(try PNGWriter.encode(image))
        #expect(back.info.format == .png)
        #expect(back.gray == image)
    }

    @Test func rgbRoundTrips() throws {
        let image = RGBImage(width: 9, height: 4, pixels: (0..<(9 * 4 * 3)).map { UInt8($0 * 5 % 256) })
        let back = try ImageDecoder.decode(try PNGWriter.encode(image), options: DecodeOptions(includeRGB: true))
        #expect(back.rgb == image)
    }

    @Test func writesAFile() throws {
        let path = "/tmp/seer-pngwriter-\(getpid()).png"
        defer { unlink(path) }
        let image = GrayImage(width: 3, height: 3, fill: 42)
        try PNGWriter.write(image, to: path)
        #expect(try ImageDecoder.decode(contentsOf: path).gray == image)
    }
}
