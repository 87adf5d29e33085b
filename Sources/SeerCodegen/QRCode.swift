import SeerImage
@_exported import enum SeerQR.QRErrorCorrection

/// How the data is encoded in the symbol.
public enum QRMode: String, Sendable, CaseIterable, Codable {
    /// Digits 0–9, three per 10 bits.
    case numeric
    /// 0–9, A–Z, space and `$%*+-./:`, two per 11 bits.
    case alphanumeric
    /// Any bytes, eight bits each.
    case byte

    var indicator: Int {
        switch self {
        case .numeric: 1
        case .alphanumeric: 2
        case .byte: 4
        }
    }

    func countBits(version: Int) -> Int {
        let range = version <= 9 ? 0 : version <= 26 ? 1 : 2
        switch self {
        case .numeric: return [10, 12, 14][range]
        case .alphanumeric: return [9, 11, 13][range]
        case .byte: return [8, 16, 16][range]
        }
    }
}

/// Why a QR Code could not be made.
public struct QREncodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `tooLong`, `badMode`, `badVersion` or `badMask`.
    public var code: String
    /// What went wrong.
    public var message: String
    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}

/// A QR Code symbol: a square of dark and light modules, without quiet zone.
public struct QRCode: Sendable, Equatable {
    /// 1–40.
    public let version: Int
    /// The error-correction level.
    public let errorCorrection: QRErrorCorrection
    /// The mask pattern applied, 0–7.
    public let mask: Int
    /// The data encoding.
    public let mode: QRMode
    /// Modules per side: 17 + 4 × version.
    public var size: Int { version * 4 + 17 }
    /// Modules row by row, `true` for dark.
    public let modules: [Bool]

    /// Whether the module at column `x`, row `y` is dark.
    public subscript(x: Int, y: Int) -> Bool { modules[y * size + x] }

    /// The symbol as a grey image: `moduleSize` pixels per module, black on white, with a quiet zone of
    /// `quietZone` modules (the standard asks for at least 4).
    public func image(moduleSize: Int = 4, quietZone: Int = 4) -> GrayImage {
        let scale = max(1, moduleSize)
        let border = max(0, quietZone)
        let side = (size + 2 * border) * scale
        var pixels = [UInt8](repeating: 255, count: side * side)
        for y in 0..<size {
            for x in 0..<size where self[x, y] {
                for dy in 0..<scale {
                    let row = ((y + border) * scale + dy) * side + (x + border) * scale
                    for dx in 0..<scale { pixels[row + dx] = 0 }
                }
            }
        }
        return GrayImage(width: side, height: side, pixels: pixels)
    }

    /// The symbol as text, one line per row: `#` dark, `.` light.
    public var text: String {
        (0..<size).map { y in String((0..<size).map { self[$0, y] ? "#" : "." }) }.joined(separator: "\n")
    }
}
