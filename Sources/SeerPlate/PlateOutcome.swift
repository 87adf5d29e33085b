/// What became of a photo's one plate, against its truth: read exactly, or the first of the failure
/// classes that applies (docs/plates.md, "Failure classes"). `plate-bench` and `seer bench --read
/// plates` count these per region.
public enum PlateOutcome: String, Sendable, Codable, CaseIterable {
    /// The top reading is the plate's text.
    case exact
    /// The text is another reading, or a candidate of the top one.
    case rightNotFirst = "right, not first"
    /// No reading, before the confidence floor, lies on the plate.
    case notFound = "not found"
    /// Readings on the plate exist, all under the confidence floor.
    case belowFloor = "found, below floor"
    /// The top reading lies elsewhere in the photo.
    case otherTextFirst = "other text first"
    /// The top reading lies on the plate with more or fewer characters.
    case wrongLength = "wrong length"
    /// The top reading lies on the plate with some characters wrong.
    case wrongCharacters = "wrong characters"

    /// Classifies a photo's readings. `readings` are every reading before the confidence floor (most
    /// trustworthy first; the floor is `minimumConfidence`); `truth` is the plate's text (A–Z, 0–9)
    /// and `box` its place (x, y, width, height in the readings' pixels) or nil when unknown, in which
    /// case every reading counts as on the plate.
    public static func classify(truth: String, box: [Double]?, readings: [PlateReading], minimumConfidence: Double) -> PlateOutcome {
        let kept = readings.filter { $0.confidence >= minimumConfidence }
        let top = kept.first
        if top?.text == truth { return .exact }
        if kept.contains(where: { $0.text == truth }) || top?.candidates.contains(where: { $0.text == truth }) == true {
            return .rightNotFirst
        }
        func onPlate(_ reading: PlateReading) -> Bool {
            guard let box, box.count == 4, reading.box.count == 4 else { return true }
            let b = reading.box
            return min(b[0] + b[2], box[0] + box[2]) > max(b[0], box[0]) && min(b[1] + b[3], box[1] + box[3]) > max(b[1], box[1])
        }
        if !readings.contains(where: onPlate) { return .notFound }
        guard let top, kept.contains(where: onPlate) else { return .belowFloor }
        if !onPlate(top) { return .otherTextFirst }
        return top.text.count != truth.count ? .wrongLength : .wrongCharacters
    }
}
