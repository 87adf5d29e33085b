import SeerImage

/// The formulas `TestImages/generate.py` draws the decoding fixtures from.
enum Patterns {
    static let width = 64, height = 48

    static func rgb(_ x: Int, _ y: Int) -> (UInt8, UInt8, UInt8) {
        (UInt8(x * 4), UInt8(y * 5), UInt8((x + y) * 2))
    }

    static func gray(_ x: Int, _ y: Int) -> UInt8 { UInt8((x * 3 + y * 2) % 256) }

    /// Grey at `bits` per sample, expanded to 8 bits the way PNG defines (replicated bits).
    static func grayLevels(_ x: Int, _ y: Int, bits: Int) -> UInt8 {
        let levels = 1 << bits
        return UInt8(((x + y) % levels) * 255 / (levels - 1))
    }

    static func gray16(_ x: Int, _ y: Int) -> Int { x * 1024 + y * 7 }

    static func alpha(_ x: Int, _ y: Int) -> UInt8 { UInt8(y * 5 + (x % 4) * 6) }

    static func palette(_ i: Int) -> (UInt8, UInt8, UInt8) {
        (UInt8(i * 16), UInt8(255 - i * 16), UInt8((i * 37) % 256))
    }

    static func paletteIndex(_ x: Int, _ y: Int) -> Int { (x / 4 + y / 4) % 16 }

    static let paletteAlpha: [UInt8] = [255, 0, 128, 64] + [UInt8](repeating: 255, count: 12)

    /// `value` composited over white with `alpha`, rounded.
    static func overWhite(_ value: UInt8, _ alpha: UInt8) -> UInt8 {
        let v = Int(value), a = Int(alpha)
        let sum: Int = v * a + 255 * (255 - a) + 127
        return UInt8(sum / 255)
    }

    /// The orientation fixtures' picture as a person sees it: 48×32, quadrants 0, 255 / 85, 170.
    static func quadrant(_ x: Int, _ y: Int) -> UInt8 {
        switch (x < 24, y < 16) {
        case (true, true): 0
        case (false, true): 255
        case (true, false): 85
        case (false, false): 170
        }
    }
}

extension Patterns {
    /// The grid HEIC's picture, 180×100 out of 192×128 coded (mirrored in TestImages/generate.py).
    static func grid(_ x: Int, _ y: Int) -> UInt8 {
        let value: Int = x * 2 + y * 3 + (x / 16) * 40 + (y / 16) * 25
        return UInt8(value % 256)
    }

    /// BT.601 luminance of the RGB pattern.
    static func rgbLuma(_ x: Int, _ y: Int) -> UInt8 {
        let (r, g, b) = rgb(x, y)
        let luma: Double = 0.299 * Double(r) + 0.587 * Double(g) + 0.114 * Double(b)
        return UInt8(luma.rounded())
    }
}
