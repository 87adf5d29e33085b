import SeerImage
import Testing

@testable import SeerQR

/// The image operations the code reader's passes use, against direct computations.
@Suite("Imaging")
struct ImagingTests {
    static func noise(_ w: Int, _ h: Int, seed: UInt64) -> GrayImage {
        var state = seed
        return GrayImage(width: w, height: h) { _, _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }

    @Test("the 3×3 median equals sorting the nine samples", arguments: [(3, 3), (17, 9), (64, 40)])
    func median(_ w: Int, _ h: Int) {
        let image = Self.noise(w, h, seed: UInt64(w * 31 + h))
        let filtered = Imaging.median3(image)
        for y in 0..<h {
            for x in 0..<w {
                if x == 0 || y == 0 || x == w - 1 || y == h - 1 {
                    #expect(filtered[x, y] == image[x, y])
                    continue
                }
                var nine: [UInt8] = []
                for dy in -1...1 { for dx in -1...1 { nine.append(image[x + dx, y + dy]) } }
                #expect(filtered[x, y] == nine.sorted()[4])
            }
        }
    }

    @Test("enlarging by a whole factor gives each pixel the bilinear sample at its centre", arguments: [(1, 1, 2), (7, 5, 2), (31, 17, 3), (12, 40, 5)])
    func upscaled(_ w: Int, _ h: Int, _ factor: Int) {
        let image = Self.noise(w, h, seed: UInt64(w * 7 + h * 3 + factor))
        let enlarged = Imaging.upscaled(image, by: factor)
        #expect(enlarged.width == w * factor && enlarged.height == h * factor)
        let inv = 1 / Double(factor)
        var differing = 0
        image.pixels.withUnsafeBufferPointer { p in
            for y in 0..<enlarged.height {
                for x in 0..<enlarged.width {
                    let expected = Imaging.sample(p, w, h, (Double(x) + 0.5) * inv - 0.5, (Double(y) + 0.5) * inv - 0.5)
                    if enlarged[x, y] != expected { differing += 1 }
                }
            }
        }
        #expect(differing == 0)
    }

    @Test("local binarisation: dark where darker than the surrounding blocks' mean by the offset")
    func binarize() {
        // A dark square on a light ground with a gradient: the square is dark, the ground is not.
        let image = GrayImage(width: 120, height: 80) { x, y in
            let ground = UInt8(150 + x / 2)
            return (40..<80).contains(x) && (20..<60).contains(y) ? ground - 90 : ground
        }
        let bits = Imaging.binarize(image, window: 48)
        #expect(bits.isDark(60, 40))
        #expect(!bits.isDark(10, 10) && !bits.isDark(110, 70))
        // A uniform image has nothing dark.
        let flat = Imaging.binarize(GrayImage(width: 50, height: 50, fill: 128), window: 24)
        #expect(!flat.bits.contains(1))
    }

    /// The block-based binarisation equals the rule it states, computed the slow way: every pixel
    /// against the mean of all pixels in the blocks within reach of its block, on sizes that leave
    /// partial blocks at the right and bottom, for both block sizes.
    /// Offsets far below and above the usual 6 make thresholds of 256 (every pixel dark) and 0 (none).
    @Test(arguments: [
        (37, 29, 24, 6), (130, 67, 48, 6), (200, 121, 96, 6), (64, 64, 128, 6), (9, 300, 70, 6), (203, 50, 96, -300),
        (203, 50, 96, 300), (203, 50, 96, -40),
    ])
    func binarizeMatchesItsRule(width: Int, height: Int, window: Int, offset: Int) {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 &+ UInt64(width * 1000 + height)
        let image = GrayImage(width: width, height: height) { x, y in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            // Noise over a slope, so thresholds differ from block to block.
            return UInt8(clamping: Int(state >> 59) * 8 + (x + 2 * y) % 120)
        }
        let bits = Imaging.binarize(image, window: window, offset: offset)
        let block = window >= 64 ? 8 : 4
        let bw = (width + block - 1) / block, bh = (height + block - 1) / block
        let r = max(1, (window / 2 + block / 2) / block)
        var mismatches = 0
        for by in 0..<bh {
            for bx in 0..<bw {
                var sum = 0, n = 0
                for y in max(0, (by - r) * block)..<min(height, (by + r + 1) * block) {
                    for x in max(0, (bx - r) * block)..<min(width, (bx + r + 1) * block) {
                        sum += Int(image[x, y])
                        n += 1
                    }
                }
                let limit = max(0, min(256, (sum * 31 + n * 32 - 1) / (n * 32) - offset))
                for y in (by * block)..<min(height, (by + 1) * block) {
                    for x in (bx * block)..<min(width, (bx + 1) * block) where bits.isDark(x, y) != (Int(image[x, y]) < limit) {
                        mismatches += 1
                    }
                }
            }
        }
        #expect(mismatches == 0)
        if abs(offset) < 100 { #expect(bits.bits.contains(1) && bits.bits.contains(0)) }
        if offset <= -300 { #expect(!bits.bits.contains(0)) }
        if offset >= 300 { #expect(!bits.bits.contains(1)) }
    }

    @Test("a row's runs end where a direct scan says, eight pixels at a time or one")
    func runEnds() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        for width in [1, 7, 8, 9, 31, 64, 333] {
            // Runs of 1 to 40 pixels of 0 or 1 (and other byte values, which the scan must also see).
            var row: [UInt8] = []
            while row.count < width {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let length = Int(state >> 58) % 40 + 1
                let value = UInt8(truncatingIfNeeded: state >> 40) % 3
                row += [UInt8](repeating: value, count: length)
            }
            row.removeLast(row.count - width)
            row.withUnsafeBufferPointer { p in
                for start in 0..<width {
                    var end = start + 1
                    while end < width && row[end] == row[start] { end += 1 }
                    #expect(FinderLocator.runEnd(p.baseAddress!, from: start, width: width) == end, "width \(width), from \(start)")
                }
            }
        }
    }

    @Test("Otsu: the two classes of a two-level image split between them")
    func otsu() {
        let image = GrayImage(width: 20, height: 10) { x, _ in x < 10 ? 30 : 220 }
        let bits = Imaging.otsu(image)
        #expect(bits.isDark(0, 0) && !bits.isDark(19, 9))
    }
}
