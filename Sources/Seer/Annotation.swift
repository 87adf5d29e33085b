import SeerImage

extension PhotoScan {
    /// The colour photo (``image``, so the scan must have been asked to include it) with the codes
    /// outlined in green and the plates in blue, each with its text drawn under it; nil without an image.
    public func annotatedImage() -> RGBImage? {
        guard var image else { return nil }
        let s = 1 / imageScale
        func mark(_ corners: [(x: Double, y: Double)], _ label: String, outline: (UInt8, UInt8, UInt8), text: (UInt8, UInt8, UInt8)) {
            let pts = corners.map { (x: $0.x * s, y: $0.y * s) }
            image.drawPolygon(pts, color: outline, thickness: max(2, image.width / 400))
            let x = Int(pts.map(\.x).min() ?? 0), y = Int(pts.map(\.y).max() ?? 0) + 4
            image.drawText(String(label.prefix(60)), x: x, y: y, scale: max(1, image.width / 600), color: text)
        }
        for symbol in symbols {
            mark(symbol.corners.map { (x: $0.x, y: $0.y) }, symbol.text ?? "(binary)", outline: (0, 220, 0), text: (255, 0, 0))
        }
        for plate in plates where plate.corners.count == 4 {
            mark(plate.corners.map { (x: $0[0], y: $0[1]) }, plate.text, outline: (0, 120, 255), text: (255, 0, 255))
        }
        return image
    }
}
