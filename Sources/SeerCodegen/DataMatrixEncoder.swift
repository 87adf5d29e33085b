import SeerImage
import SeerQR

/// A Data Matrix (ECC 200) symbol: its modules, dark = true, row by row, finder and clock tracks
/// included.
public struct DataMatrixCode: Sendable, Equatable {
    /// Modules per row.
    public let width: Int
    /// Modules per column.
    public let height: Int
    /// `modules[y * width + x]`, dark = true.
    public let modules: [Bool]

    /// Whether the module at column `x`, row `y` is dark.
    public subscript(x: Int, y: Int) -> Bool { modules[y * width + x] }

    /// The symbol drawn black on white, `moduleSize` pixels per module, inside a light quiet zone of
    /// `quietZone` modules.
    public func image(moduleSize: Int = 4, quietZone: Int = 2) -> GrayImage {
        let w = (width + 2 * quietZone) * moduleSize, h = (height + 2 * quietZone) * moduleSize
        var pixels = [UInt8](repeating: 255, count: w * h)
        for y in 0..<height {
            for x in 0..<width where self[x, y] {
                for dy in 0..<moduleSize {
                    let row = ((y + quietZone) * moduleSize + dy) * w
                    for dx in 0..<moduleSize { pixels[row + (x + quietZone) * moduleSize + dx] = 0 }
                }
            }
        }
        return GrayImage(width: w, height: h, pixels: pixels)
    }
}

/// Encodes Data Matrix ECC 200 symbols (ISO/IEC 16022), square sizes 10×10 to 104×104, in ASCII
/// encodation (digit pairs packed, bytes over 127 by Upper Shift), with FNC1 for GS1 data: the
/// demo's medicine packs and the tests that read them back.
public enum DataMatrixEncoder {
    /// One square symbol size: modules per side, the side of each data region, regions per side,
    /// data and error-correction codewords, and the Reed–Solomon blocks they are interleaved in.
    struct Size {
        var side: Int
        var region: Int
        var regions: Int
        var data: Int
        var ecc: Int
        var blocks: Int
    }

    /// ISO/IEC 16022's table of square ECC 200 sizes (the 144×144 size, whose blocks differ in length,
    /// is left out).
    static let sizes: [Size] = [
        Size(side: 10, region: 8, regions: 1, data: 3, ecc: 5, blocks: 1),
        Size(side: 12, region: 10, regions: 1, data: 5, ecc: 7, blocks: 1),
        Size(side: 14, region: 12, regions: 1, data: 8, ecc: 10, blocks: 1),
        Size(side: 16, region: 14, regions: 1, data: 12, ecc: 12, blocks: 1),
        Size(side: 18, region: 16, regions: 1, data: 18, ecc: 14, blocks: 1),
        Size(side: 20, region: 18, regions: 1, data: 22, ecc: 18, blocks: 1),
        Size(side: 22, region: 20, regions: 1, data: 30, ecc: 20, blocks: 1),
        Size(side: 24, region: 22, regions: 1, data: 36, ecc: 24, blocks: 1),
        Size(side: 26, region: 24, regions: 1, data: 44, ecc: 28, blocks: 1),
        Size(side: 32, region: 14, regions: 2, data: 62, ecc: 36, blocks: 1),
        Size(side: 36, region: 16, regions: 2, data: 86, ecc: 42, blocks: 1),
        Size(side: 40, region: 18, regions: 2, data: 114, ecc: 48, blocks: 1),
        Size(side: 44, region: 20, regions: 2, data: 144, ecc: 56, blocks: 1),
        Size(side: 48, region: 22, regions: 2, data: 174, ecc: 68, blocks: 1),
        Size(side: 52, region: 24, regions: 2, data: 204, ecc: 84, blocks: 2),
        Size(side: 64, region: 14, regions: 4, data: 280, ecc: 112, blocks: 2),
        Size(side: 72, region: 16, regions: 4, data: 368, ecc: 144, blocks: 4),
        Size(side: 80, region: 18, regions: 4, data: 456, ecc: 192, blocks: 4),
        Size(side: 88, region: 20, regions: 4, data: 576, ecc: 224, blocks: 4),
        Size(side: 96, region: 22, regions: 4, data: 696, ecc: 272, blocks: 4),
        Size(side: 104, region: 24, regions: 4, data: 816, ecc: 336, blocks: 6),
    ]

    /// The codeword for FNC1.
    static let fnc1: UInt8 = 232

    /// Encodes `bytes` in the smallest square symbol that holds them. With `gs1`, the symbol starts
    /// with FNC1 and each GS (0x1D) in `bytes` is written as FNC1, as GS1 element strings are.
    public static func encode(_ bytes: [UInt8], gs1: Bool = false) throws -> DataMatrixCode {
        let data = codewords(bytes, gs1: gs1)
        guard let size = sizes.first(where: { $0.data >= data.count }) else {
            throw QREncodingError(code: "tooLong", message: "\(data.count) Data Matrix codewords: more than a 104×104 symbol holds.")
        }
        let padded = pad(data, to: size.data)
        return place(interleave(padded, size), size)
    }

    /// Encodes text as UTF-8 (see ``encode(_:gs1:)``).
    public static func encode(_ text: String, gs1: Bool = false) throws -> DataMatrixCode {
        try encode(Array(text.utf8), gs1: gs1)
    }

    /// ASCII encodation: two digits in one codeword (130 + their value), a byte under 128 as itself
    /// plus one, a byte over 127 as Upper Shift (235) and the byte less 127.
    static func codewords(_ bytes: [UInt8], gs1: Bool) -> [UInt8] {
        var out: [UInt8] = gs1 ? [fnc1] : []
        var i = 0
        func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        while i < bytes.count {
            let b = bytes[i]
            if i + 1 < bytes.count, isDigit(b), isDigit(bytes[i + 1]) {
                out.append(130 + (b - 0x30) * 10 + (bytes[i + 1] - 0x30))
                i += 2
                continue
            }
            if gs1 && b == 0x1D {
                out.append(fnc1)
            } else if b < 128 {
                out.append(b + 1)
            } else {
                out.append(235)
                out.append(b - 127)
            }
            i += 1
        }
        return out
    }

    /// Fills the data codewords to `count`: the first pad is 129, later ones 129 scrambled by their
    /// position (the 253-state randomising of ISO/IEC 16022).
    static func pad(_ data: [UInt8], to count: Int) -> [UInt8] {
        var out = data
        if out.count < count { out.append(129) }
        while out.count < count {
            let position = out.count + 1
            var value = 129 + ((149 * position) % 253) + 1
            if value > 254 { value -= 254 }
            out.append(UInt8(value))
        }
        return out
    }

    /// The data followed by the error-correction codewords, each block's codewords spread over every
    /// `blocks`-th position.
    static func interleave(_ data: [UInt8], _ size: Size) -> [UInt8] {
        let eccPerBlock = size.ecc / size.blocks
        var out = data + [UInt8](repeating: 0, count: size.ecc)
        for block in 0..<size.blocks {
            let blockData = stride(from: block, to: data.count, by: size.blocks).map { data[$0] }
            // GF(256) modulo 0x12D, the generator's roots α¹ … αⁿ: Aztec Code's 8-bit field and code.
            let ecc = FieldReedSolomon.encode(blockData.map(Int.init), checkCount: eccPerBlock, field: .gf256)
            for (k, c) in ecc.enumerated() { out[data.count + block + k * size.blocks] = UInt8(c) }
        }
        return out
    }

    /// Places the codewords in the mapping matrix (ISO/IEC 16022's diagonal placement with its four
    /// corner cases), then draws the data regions with their finder and clock tracks.
    static func place(_ codewords: [UInt8], _ size: Size) -> DataMatrixCode {
        let n = size.region * size.regions
        // The placement's modules as codeword × 8 + bit, drawn here as 0 light, 1 dark, -1 unset.
        var matrix = DMRE.placement(rows: n, columns: n).map { v -> Int8 in
            guard v >= 0 else { return -1 }
            let value = v >> 3 < codewords.count ? codewords[v >> 3] : 0
            return (value >> (7 - (v & 7))) & 1 == 1 ? 1 : 0
        }
        // A corner no codeword reached holds a fixed pattern.
        if matrix[n * n - 1] < 0 {
            matrix[n * n - 1] = 1
            matrix[(n - 1) * n - 2] = 1
            matrix[n * n - 2] = 0
            matrix[(n - 1) * n - 1] = 0
        }

        let side = size.side, cell = size.region + 2
        var modules = [Bool](repeating: false, count: side * side)
        for y in 0..<side {
            for x in 0..<side {
                let iy = y % cell, ix = x % cell
                let dark: Bool
                if iy == cell - 1 || ix == 0 {
                    dark = true  // the solid L: left column and bottom row of each region
                } else if iy == 0 {
                    dark = ix % 2 == 0  // the clock track along the top
                } else if ix == cell - 1 {
                    dark = iy % 2 == 1  // the clock track down the right
                } else {
                    let r = (y / cell) * size.region + iy - 1, c = (x / cell) * size.region + ix - 1
                    dark = matrix[r * n + c] == 1
                }
                modules[y * side + x] = dark
            }
        }
        return DataMatrixCode(width: side, height: side, modules: modules)
    }
}
