/// Simple drawing on ``RGBImage`` for annotated output: lines, polygons and text in a built-in
/// 3×5 bitmap font (digits, capital letters and common punctuation; lower case is drawn as capitals).
extension RGBImage {
    /// Sets one pixel if it lies inside the image.
    @inlinable
    public mutating func plot(_ x: Int, _ y: Int, color: (UInt8, UInt8, UInt8)) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let i = (y * width + x) * 3
        pixels[i] = color.0
        pixels[i + 1] = color.1
        pixels[i + 2] = color.2
    }

    /// Draws a straight line `thickness` pixels wide (Bresenham, with a square pen).
    public mutating func drawLine(
        from a: (x: Double, y: Double), to b: (x: Double, y: Double), color: (UInt8, UInt8, UInt8), thickness: Int = 1
    ) {
        var x0 = Int(a.x.rounded()), y0 = Int(a.y.rounded())
        let x1 = Int(b.x.rounded()), y1 = Int(b.y.rounded())
        let dx = abs(x1 - x0), dy = -abs(y1 - y0)
        let sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1
        var err = dx + dy
        let r0 = -(thickness - 1) / 2, r1 = thickness / 2
        var steps = 0
        while steps <= 1_000_000 {
            for oy in r0...r1 { for ox in r0...r1 { plot(x0 + ox, y0 + oy, color: color) } }
            if x0 == x1 && y0 == y1 { break }
            let e2 = 2 * err
            if e2 >= dy { err += dy; x0 += sx }
            if e2 <= dx { err += dx; y0 += sy }
            steps += 1
        }
    }

    /// Draws a closed polygon through `points`.
    public mutating func drawPolygon(_ points: [(x: Double, y: Double)], color: (UInt8, UInt8, UInt8), thickness: Int = 1) {
        guard points.count >= 2 else { return }
        for i in 0..<points.count {
            drawLine(from: points[i], to: points[(i + 1) % points.count], color: color, thickness: thickness)
        }
    }

    /// Draws `text` with its top-left corner at (`x`, `y`) on a white backing, each font pixel
    /// `scale`×`scale` image pixels. Characters outside the font are drawn as a small block.
    public mutating func drawText(_ text: String, x: Int, y: Int, scale: Int = 1, color: (UInt8, UInt8, UInt8)) {
        let s = max(1, scale)
        let chars = Array(text.uppercased())
        let advance = 4 * s
        // White backing so the label reads on any photo.
        for yy in (y - s)..<(y + 6 * s) {
            for xx in (x - s)..<(x + advance * chars.count) { plot(xx, yy, color: (255, 255, 255)) }
        }
        for (n, ch) in chars.enumerated() {
            let bits = RGBImage.font[ch] ?? 0x01FF0
            for row in 0..<5 {
                for col in 0..<3 where bits & (1 << ((4 - row) * 3 + (2 - col))) != 0 {
                    for oy in 0..<s {
                        for ox in 0..<s { plot(x + n * advance + col * s + ox, y + row * s + oy, color: color) }
                    }
                }
            }
        }
    }

    /// 3×5 glyphs, 15 bits each: rows top to bottom, 3 bits a row, most significant bit on the left.
    static let font: [Character: Int] = [
        "0": 0x7B6F, "1": 0x2C97, "2": 0x73E7, "3": 0x73CF, "4": 0x5BC9, "5": 0x79CF,
        "6": 0x79EF, "7": 0x7249, "8": 0x7BEF, "9": 0x7BCF, "A": 0x2BED, "B": 0x6BAE,
        "C": 0x3923, "D": 0x6B6E, "E": 0x79A7, "F": 0x79A4, "G": 0x396B, "H": 0x5BED,
        "I": 0x7497, "J": 0x126A, "K": 0x5BAD, "L": 0x4927, "M": 0x5FED, "N": 0x6B6D,
        "O": 0x2B6A, "P": 0x6BA4, "Q": 0x2B73, "R": 0x6BAD, "S": 0x388E, "T": 0x7492,
        "U": 0x5B6F, "V": 0x5B6A, "W": 0x5BFD, "X": 0x5AAD, "Y": 0x5A92, "Z": 0x72A7,
        ":": 0x0410, ".": 0x0002, "/": 0x12A4, "-": 0x01C0, "_": 0x0007, "?": 0x7282,
        "=": 0x0E38, "&": 0x2AAB, "+": 0x05D0, "(": 0x1491, ")": 0x4494, ",": 0x0014,
        "%": 0x52A5, "#": 0x5F7D, "@": 0x7BE7, "!": 0x2482, "*": 0x55D5, "'": 0x2400,
        "\"": 0x5A00, " ": 0x0000,
    ]
}
