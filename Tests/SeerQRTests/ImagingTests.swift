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

    @Test("Otsu: the two classes of a two-level image split between them")
    func otsu() {
        let image = GrayImage(width: 20, height: 10) { x, _ in x < 10 ? 30 : 220 }
        let bits = Imaging.otsu(image)
        #expect(bits.isDark(0, 0) && !bits.isDark(19, 9))
    }
}
