import SeerImage

/// Paths of the committed fixtures, found from this file's location.
enum Fixtures {
    static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // Fixtures.swift, SeerImageTests, Tests
        return parts.joined(separator: "/") + "/TestImages"
    }()

    static func path(_ group: String, _ name: String) -> String { "\(root)/\(group)/\(name)" }

    static func decode(_ group: String, _ name: String, options: DecodeOptions = .init()) throws -> DecodedImage {
        try ImageDecoder.decode(contentsOf: path(group, name), options: options)
    }
}

/// The largest and mean absolute difference between an image and the expected function of position.
func difference(_ image: GrayImage, _ expected: (Int, Int) -> UInt8) -> (max: Int, mean: Double) {
    var worst = 0, total = 0
    for y in 0..<image.height {
        for x in 0..<image.width {
            let d = abs(Int(image[x, y]) - Int(expected(x, y)))
            worst = max(worst, d)
            total += d
        }
    }
    return (worst, Double(total) / Double(max(1, image.count)))
}
