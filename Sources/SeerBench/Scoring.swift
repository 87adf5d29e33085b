import Foundation

/// One code as a reader returned it, in the terms scoring needs.
public struct BenchReading: Sendable, Codable, Equatable {
    /// The symbology as the reader names it (may be empty).
    public var format: String
    /// The text, nil when the reader gave none (binary data).
    public var text: String?
    /// The corners in the photo's stored pixel grid (before EXIF orientation), empty when unknown.
    public var corners: [BenchPoint]

    /// Creates a reading.
    public init(format: String = "", text: String?, corners: [BenchPoint] = []) {
        self.format = format
        self.text = text
        self.corners = corners
    }
}

/// How one photo scored.
public struct PhotoScore: Sendable, Codable, Equatable {
    /// The photo's outcome as a whole.
    public enum Outcome: String, Sendable, Codable {
        /// Everything expected was read right.
        case correct
        /// Something was read, not what was expected.
        case wrong
        /// Nothing was read where something was expected (or part of it, for several codes).
        case missed
        /// Something was read in a photo with nothing to read.
        case falseReading = "false"
        /// Nothing to read, nothing read.
        case clean
    }

    /// Codes or plates expected in the photo (the units of `correct`, `wrong` and `missed`).
    public var expected = 0
    /// Expected codes or plates read right (for BoofCV truth: codes located and decoded).
    public var correct = 0
    /// Expected codes or plates read as something else.
    public var wrong = 0
    /// Expected codes or plates not read.
    public var missed = 0
    /// Readings of nothing expected (BoofCV: a symbol near no code; `falsepositives-*`: every symbol).
    public var falseReadings = 0
    /// Second readings of a code already counted (BoofCV truth).
    public var duplicates = 0
    /// Readings without a position (BoofCV truth: neither right nor false).
    public var unlocated = 0
    /// Plates within one edit of the truth (exact ones included).
    public var withinOne = 0
    /// The barcode normalisation rule a correct reading matched under (`exact`, `gtin13`, …).
    public var rule: String?
    /// The outcome.
    public var outcome: Outcome = .missed

    /// Creates an empty score.
    public init() {}
}

/// Scores one photo's readings against its truth, by the rules of the shared scoring tools.
public enum Scoring {
    /// Scores codes read in a photo. `category` is the folder's name (its last component decides the
    /// barcode family for ``Truth/text`` truth).
    ///
    /// `wholeOutput` is a command-line reader's whole standard output, which `score_codes.py` takes
    /// as one more candidate text beside its lines (a payload with line breaks), for QR text truth.
    public static func score(_ truth: Truth, category: String, codes: [BenchReading], wholeOutput: String? = nil) -> PhotoScore {
        switch truth {
        case .text(let expected):
            let family = TextScoring.family(ofSet: TruthLoader.lastComponent(category))
            let extra = wholeOutput.map { TextScoring.stripNewline($0) }.map { [$0] } ?? []
            return family == .other
                ? TextScoring.scoreQR(expected, texts: extra + codes.compactMap(\.text))
                : TextScoring.scoreBarcode(expected, family: family, texts: codes.compactMap(\.text))
        case .nothing:
            return TextScoring.scoreNothing(texts: codes.compactMap(\.text))
        case .quads(let quads):
            return BoofCVScoring.score(quads: quads, readings: codes)
        case .plate(let plate):
            return PlateScoring.score(truth: plate, predicted: codes.first?.text ?? "")
        case .texts(let texts):
            return SeerScoring.score(expected: texts, read: codes.compactMap(\.text), normalise: { $0 })
        }
    }

    /// Scores plates read in a photo, most trustworthy first.
    public static func score(_ truth: Truth, plates: [String]) -> PhotoScore {
        switch truth {
        case .plate(let plate):
            return PlateScoring.score(truth: plate, predicted: plates.first ?? "")
        case .texts(let texts):
            return SeerScoring.score(expected: texts, read: plates, normalise: PlateScoring.normalise)
        case .nothing:
            return SeerScoring.score(expected: [], read: plates, normalise: PlateScoring.normalise)
        case .text(let expected):
            guard case .text(let s) = expected else { return PlateScoring.score(truth: "", predicted: plates.first ?? "") }
            return PlateScoring.score(truth: PlateScoring.normalise(s), predicted: plates.first ?? "")
        case .quads(let quads):
            var s = PhotoScore()
            s.expected = quads.count
            s.missed = quads.count
            s.falseReadings = plates.count
            s.outcome = .missed
            return s
        }
    }
}

/// Text scoring: `score_codes.py --dataset qr` for QR photos, `score_barcodes.py` for folders named
/// after a 1-D family (`ean13-*`, `upca-*`, …, `falsepositives-*`), with its normalisation rules.
public enum TextScoring {
    /// A 1-D barcode family, from a folder's name prefix (`score_barcodes.py`'s table).
    public enum Family: String, Sendable, CaseIterable {
        case ean13 = "EAN-13", ean8 = "EAN-8", upca = "UPC-A", upce = "UPC-E", code128 = "Code 128", code39 = "Code 39"
        case itf = "ITF", databar = "DataBar", noBarcode = "no barcode", other

        static let prefixes: [(Family, String)] = [
            (.ean13, "ean13-"), (.ean8, "ean8-"), (.upca, "upca-"), (.upce, "upce-"), (.code128, "code128-"), (.code39, "code39-"),
            (.itf, "itf-"), (.databar, "rss14-"), (.noBarcode, "falsepositives-"),
        ]
    }

    /// The family of a folder named `set`.
    public static func family(ofSet set: String) -> Family {
        for (family, prefix) in Family.prefixes where set.hasPrefix(prefix) { return family }
        return .other
    }

    /// Drops one trailing `\n` or `\r\n`.
    public static func stripNewline(_ s: String) -> String {
        var u = Array(s.unicodeScalars)
        if u.count >= 2, u[u.count - 2] == "\r", u[u.count - 1] == "\n" {
            u.removeLast(2)
        } else if u.last == "\n" {
            u.removeLast()
        }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: u)
        return String(out)
    }

    /// Drops one trailing `\n` or `\r\n` from bytes.
    public static func stripNewline(_ b: [UInt8]) -> [UInt8] {
        if b.count >= 2, b[b.count - 2] == 13, b[b.count - 1] == 10 { return Array(b.dropLast(2)) }
        if b.last == 10 { return Array(b.dropLast()) }
        return b
    }

    /// `score_codes.py`: correct when some text equals the expected one after one trailing newline is
    /// dropped from both (bytes: its UTF-8 or Latin-1 encoding equals them); wrong when some non-empty
    /// text was read; missed otherwise.
    public static func scoreQR(_ expected: ExpectedText, texts: [String]) -> PhotoScore {
        // The tool strips each decoded text once when it records it and once more when it compares.
        let kept = texts.map(stripNewline).filter { !stripNewline($0).isEmpty }
        var s = PhotoScore()
        s.expected = 1
        if kept.contains(where: { matches(expected, stripNewline($0)) }) {
            s.correct = 1
            s.outcome = .correct
        } else if !kept.isEmpty {
            s.wrong = 1
            s.outcome = .wrong
        } else {
            s.missed = 1
            s.outcome = .missed
        }
        return s
    }

    static func matches(_ expected: ExpectedText, _ text: String) -> Bool {
        switch expected {
        case .text(let e): return text == e
        case .bytes(let b):
            if Array(text.utf8) == b { return true }
            let scalars = text.unicodeScalars
            return scalars.allSatisfy { $0.value < 256 } && scalars.map { UInt8($0.value) } == b
        }
    }

    /// `score_barcodes.py` on a photo with no barcode: every reading is a false one.
    public static func scoreNothing(texts: [String]) -> PhotoScore {
        var s = PhotoScore()
        s.falseReadings = texts.count
        s.outcome = texts.isEmpty ? .clean : .falseReading
        return s
    }

    /// `score_barcodes.py`: correct when some text reads as the expected one, exactly or by one of
    /// the normalisation rules of its family (``match(_:_:family:)``); wrong when anything was read.
    public static func scoreBarcode(_ expected: ExpectedText, family: Family, texts: [String]) -> PhotoScore {
        if family == .noBarcode { return scoreNothing(texts: texts) }
        var s = PhotoScore()
        s.expected = 1
        guard case .text(let e) = expected else {
            return scoreQR(expected, texts: texts)
        }
        if texts.isEmpty {
            s.missed = 1
            s.outcome = .missed
            return s
        }
        for t in texts {
            if let rule = match(e, t, family: family) {
                s.correct = 1
                s.rule = rule
                s.outcome = .correct
                return s
            }
        }
        s.wrong = 1
        s.outcome = .wrong
        return s
    }

    /// The rule under which `text` reads as `expected` (`exact`, `gtin13`, `gs1`, `ai01`, `c39-ascii`,
    /// `code32`), or nil: `score_barcodes.py`'s R1–R5.
    public static func match(_ expected: String, _ text: String, family: Family) -> String? {
        if text == expected { return "exact" }
        let eanUPC: Set<Family> = [.ean13, .ean8, .upca, .upce]
        if eanUPC.contains(family), isDigits(text), isDigits(expected), expected.count != 8 {
            if gtin13(text) == gtin13(expected) { return "gtin13" }
        }
        if family == .code128 || family == .databar {
            let e = gs1Plain(expected), t = gs1Plain(text)
            if e == t { return "gs1" }
            if family == .databar, t.count == 14, isDigits(t), e == "01" + t { return "ai01" }
        }
        if family == .code39 {
            if code39FullASCII(text) == expected { return "c39-ascii" }
            if code32(text) == expected { return "code32" }
        }
        return nil
    }

    /// Python's `str.isdigit` for the texts barcodes carry: non-empty, every character a decimal digit.
    static func isDigits(_ s: String) -> Bool {
        !s.isEmpty && s.unicodeScalars.allSatisfy { $0.properties.numericType == .decimal || $0.properties.numericType == .digit }
    }

    static func upceToUPCA(_ d: [Character]) -> String {
        let ns = d[0], x = Array(d[1..<7]), check = d[7]
        let last = x[5]
        let body: String
        switch last {
        case "0", "1", "2": body = String(x[0..<2]) + String(last) + "0000" + String(x[2..<5])
        case "3": body = String(x[0..<3]) + "00000" + String(x[3..<5])
        case "4": body = String(x[0..<4]) + "00000" + String(x[4])
        default: body = String(x[0..<5]) + "0000" + String(last)
        }
        return String(ns) + body + String(check)
    }

    static func gtin13(_ t: String) -> String {
        guard isDigits(t) else { return t }
        let c = Array(t)
        if c.count == 12 { return "0" + t }
        if c.count == 8, c[0] == "0" || c[0] == "1" { return "0" + upceToUPCA(c) }
        return t
    }

    /// `(AI)data(AI)data…` with 2–4 digit AIs.
    static func isHRI(_ t: String) -> Bool {
        let c = Array(t.unicodeScalars)
        var i = 0
        if c.isEmpty { return false }
        while i < c.count {
            guard c[i] == "(" else { return false }
            var j = i + 1
            while j < c.count, ("0"..."9").contains(c[j]) { j += 1 }
            let digits = j - i - 1
            guard (2...4).contains(digits), j < c.count, c[j] == ")" else { return false }
            j += 1
            let start = j
            while j < c.count, c[j] != "(", c[j] != ")" { j += 1 }
            guard j > start else { return false }
            if j < c.count, c[j] == ")" { return false }
            i = j
        }
        return true
    }

    static func gs1Plain(_ text: String) -> String {
        var t = text
        for sid in ["]C1", "]e0"] where t.hasPrefix(sid) { t = String(t.dropFirst(3)) }
        t = t.replacingOccurrences(of: "\u{1D}", with: "")
        if isHRI(t) { t = t.replacingOccurrences(of: "(", with: "").replacingOccurrences(of: ")", with: "") }
        return t
    }

    static let fullASCII: [String: Character] = {
        var m: [String: Character] = [:]
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        for (i, c) in letters.enumerated() {
            m["$" + String(c)] = Character(Unicode.Scalar(UInt8(1 + i)))
            m["+" + String(c)] = Character(Unicode.Scalar(UInt8(97 + i)))
        }
        for (c, v) in zip("ABCDEFGHIJKLMNO", "!\"#$%&'()*+,-./") { m["/" + String(c)] = v }
        m["/Z"] = ":"
        for (c, v) in zip("ABCDE", [0x1B, 0x1C, 0x1D, 0x1E, 0x1F] as [UInt8]) { m["%" + String(c)] = Character(Unicode.Scalar(v)) }
        for (c, v) in zip("FGHIJ", ";<=>?") { m["%" + String(c)] = v }
        for (c, v) in zip("KLMNO", "[\\]^_") { m["%" + String(c)] = v }
        for (c, v) in zip("PQRST", "{|}~\u{7F}") { m["%" + String(c)] = v }
        m["%U"] = "\u{0}"
        m["%V"] = "@"
        m["%W"] = "`"
        for c in "XYZ" { m["%" + String(c)] = "\u{7F}" }
        return m
    }()

    static func code39FullASCII(_ text: String) -> String? {
        let t = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        while i < t.count {
            let shift = "$%+/".unicodeScalars.contains(t[i])
            if shift, i + 1 < t.count {
                var pair = String.UnicodeScalarView()
                pair.append(t[i])
                pair.append(t[i + 1])
                guard let v = fullASCII[String(pair)] else { return nil }
                out.append(contentsOf: v.unicodeScalars)
                i += 2
            } else {
                out.append(t[i])
                i += 1
            }
        }
        return String(out)
    }

    static let code32Alphabet = Array("0123456789BCDFGHJKLMNPQRSTUVWXYZ")

    static func code32(_ text: String) -> String? {
        let c = Array(text)
        guard c.count == 6 else { return nil }
        var v = 0
        for ch in c {
            guard let k = code32Alphabet.firstIndex(of: ch) else { return nil }
            v = v * 32 + k
        }
        guard v < 1_000_000_000 else { return nil }
        let digits = String(v)
        return "A" + String(repeating: "0", count: max(0, 9 - digits.count)) + digits
    }
}

/// Location scoring of BoofCV's QR benchmark (`boofcv_scoring.py`): a ground-truth code counts as
/// decoded when a reading with a non-empty text has its centre inside the code's quad or within 10 %
/// of the quad's size (the square root of its area) of it.
public enum BoofCVScoring {
    /// The tolerance, as a share of a quad's size.
    public static let tolerance = 0.10

    /// The quads of a ground-truth file: `#` comment lines, then `SETS` and one line of 8 numbers per
    /// code, or 4 lines `x y` for one code. Corners are put in counter-clockwise order of angle.
    public static func readQuads(_ text: String) throws -> [[BenchPoint]] {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map { line in
            line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\u{0B}" || $0 == "\u{0C}" }).map(String.init)
        }.filter { !$0.isEmpty && !$0[0].hasPrefix("#") }
        var groups: [[Double]] = []
        func number(_ s: String) throws -> Double {
            guard let v = Double(s) else { throw TruthError(file: "", reason: "'\(s)' is not a number") }
            return v
        }
        if let first = lines.first, first == ["SETS"] {
            groups = try lines.dropFirst().map { try $0.map(number) }
        } else {
            let flat = try lines.flatMap { try $0.map(number) }
            groups = stride(from: 0, to: flat.count, by: 8).map { Array(flat[$0..<min($0 + 8, flat.count)]) }
        }
        if groups.isEmpty { throw TruthError(file: "", reason: "no corners") }
        return try groups.map { g in
            guard g.count == 8 else { throw TruthError(file: "", reason: "expected 8 numbers per code, got \(g.count)") }
            return orderCCW(stride(from: 0, to: 8, by: 2).map { BenchPoint(g[$0], g[$0 + 1]) })
        }
    }

    static func orderCCW(_ pts: [BenchPoint]) -> [BenchPoint] {
        let cx = pts.reduce(0.0) { $0 + $1.x } / Double(pts.count)
        let cy = pts.reduce(0.0) { $0 + $1.y } / Double(pts.count)
        let keyed = pts.enumerated().map { (atan2($0.element.y - cy, $0.element.x - cx), $0.offset, $0.element) }
        return keyed.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2)
    }

    static func edges(_ poly: [BenchPoint]) -> [(BenchPoint, BenchPoint)] {
        (0..<poly.count).map { (poly[$0], poly[($0 + 1) % poly.count]) }
    }

    static func area(_ poly: [BenchPoint]) -> Double {
        0.5 * abs(edges(poly).reduce(0.0) { $0 + ($1.0.x * $1.1.y - $1.1.x * $1.0.y) })
    }

    static func inside(_ p: BenchPoint, _ poly: [BenchPoint]) -> Bool {
        var res = false
        for (a, b) in edges(poly) where (a.y > p.y) != (b.y > p.y) && p.x < a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y) {
            res.toggle()
        }
        return res
    }

    static func segmentDistance(_ p: BenchPoint, _ a: BenchPoint, _ b: BenchPoint) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let l2 = dx * dx + dy * dy
        let t = l2 == 0 ? 0.0 : max(0.0, min(1.0, ((p.x - a.x) * dx + (p.y - a.y) * dy) / l2))
        return hypot(p.x - a.x - t * dx, p.y - a.y - t * dy)
    }

    static func distance(_ p: BenchPoint, _ poly: [BenchPoint]) -> Double {
        if inside(p, poly) { return 0 }
        return edges(poly).map { segmentDistance(p, $0.0, $0.1) }.min() ?? .infinity
    }

    /// The mean of the points, nil for none.
    public static func centre(_ corners: [BenchPoint]) -> BenchPoint? {
        guard !corners.isEmpty else { return nil }
        return BenchPoint(corners.reduce(0.0) { $0 + $1.x } / Double(corners.count), corners.reduce(0.0) { $0 + $1.y } / Double(corners.count))
    }

    /// The index of the quad a point belongs to: the one containing it, else the nearest within the
    /// tolerance; nil for none.
    public static func locate(_ p: BenchPoint, _ quads: [[BenchPoint]]) -> Int? {
        var best: ((Double, Double), Int)?
        for (i, q) in quads.enumerated() {
            let a = area(q).squareRoot()
            let size = a == 0 ? 1.0 : a
            let r = distance(p, q) / size
            if r <= tolerance, let qc = centre(q) {
                let key = (r, hypot(p.x - qc.x, p.y - qc.y) / size)
                if best == nil || key < best!.0 { best = (key, i) }
            }
        }
        return best?.1
    }

    /// Scores a photo's readings against its quads.
    public static func score(quads: [[BenchPoint]], readings: [BenchReading]) -> PhotoScore {
        var s = PhotoScore()
        s.expected = quads.count
        var hit = Set<Int>()
        for r in readings where !(r.text ?? "").isEmpty {
            guard let c = centre(r.corners) else {
                s.unlocated += 1
                continue
            }
            if let i = locate(c, quads) {
                if hit.contains(i) { s.duplicates += 1 } else { hit.insert(i) }
            } else {
                s.falseReadings += 1
            }
        }
        s.correct = hit.count
        s.missed = quads.count - hit.count
        s.outcome = s.missed == 0 ? (s.falseReadings > 0 ? .wrong : .correct) : .missed
        if quads.isEmpty { s.outcome = s.falseReadings > 0 ? .falseReading : .clean }
        return s
    }

    /// A point of the displayed photo (EXIF orientation applied, `width`×`height`) in the stored grid
    /// (`seer_stored.py`'s mapping).
    public static func toStored(_ x: Double, _ y: Double, orientation: Int, width wd: Double, height hd: Double) -> BenchPoint {
        switch orientation {
        case 2: BenchPoint(wd - x, y)
        case 3: BenchPoint(wd - x, hd - y)
        case 4: BenchPoint(x, hd - y)
        case 5: BenchPoint(y, x)
        case 6: BenchPoint(y, wd - x)
        case 7: BenchPoint(hd - y, wd - x)
        case 8: BenchPoint(hd - y, x)
        default: BenchPoint(x, y)
        }
    }
}

/// Plate scoring (`score_plates.py`): the top plate read, upper-cased with everything but A–Z and 0–9
/// dropped, is exact when it equals the truth (normalised the same way), within one when at most one
/// edit away.
public enum PlateScoring {
    /// Upper case, only A–Z and 0–9 kept.
    public static func normalise(_ s: String) -> String {
        String(s.uppercased().unicodeScalars.filter { ("A"..."Z").contains($0) || ("0"..."9").contains($0) }.map(Character.init))
    }

    /// The Levenshtein distance.
    public static func levenshtein(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        var prev = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var cur = [i + 1]
            for (j, cb) in b.enumerated() {
                cur.append(min(prev[j + 1] + 1, cur[j] + 1, prev[j] + (ca == cb ? 0 : 1)))
            }
            prev = cur
        }
        return prev[b.count]
    }

    /// Scores the top plate read (`""` for none) against the truth.
    public static func score(truth: String, predicted: String) -> PhotoScore {
        let pred = normalise(predicted)
        let edits = levenshtein(pred, truth)
        var s = PhotoScore()
        s.expected = 1
        s.withinOne = edits <= 1 ? 1 : 0
        if edits == 0 {
            s.correct = 1
            s.outcome = .correct
        } else if pred.isEmpty {
            s.missed = 1
            s.outcome = .missed
        } else {
            s.wrong = 1
            s.outcome = .wrong
        }
        return s
    }

    /// `truth.csv`: photo name → plate text, normalised.
    public static func readTruth(_ file: String) throws -> [String: String] {
        guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
            throw TruthError(file: file, reason: "cannot read it as UTF-8 text")
        }
        let rows = CSV.parse(text)
        guard let header = rows.first, let f = header.firstIndex(of: "file"), let p = header.firstIndex(of: "plate_text") else {
            throw TruthError(file: file, reason: "no 'file' and 'plate_text' columns in its header")
        }
        var out: [String: String] = [:]
        for row in rows.dropFirst() where row.count > max(f, p) {
            out[row[f]] = normalise(row[p])
        }
        return out
    }

    /// `truth.csv`: photo name → the plate's box (`x`, `y`, `w`, `h` columns), for the rows that have
    /// all four as numbers; empty when the file has no such columns.
    public static func readBoxes(_ file: String) throws -> [String: [Double]] {
        guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
            throw TruthError(file: file, reason: "cannot read it as UTF-8 text")
        }
        let rows = CSV.parse(text)
        guard let header = rows.first, let f = header.firstIndex(of: "file") else { return [:] }
        let columns = ["x", "y", "w", "h"].compactMap { header.firstIndex(of: $0) }
        guard columns.count == 4 else { return [:] }
        var out: [String: [Double]] = [:]
        for row in rows.dropFirst() where row.count > max(f, columns.max()!) {
            let box = columns.compactMap { Double(row[$0].trimmingCharacters(in: .whitespaces)) }
            if box.count == 4 { out[row[f]] = box }
        }
        return out
    }
}

/// Scoring of the project's own format (``TruthFormat/seer``): each expected text is correct when some
/// reading equals it (codes: after one trailing newline is dropped; plates: normalised to A–Z and
/// 0–9), wrong when it was not read but the photo has a reading that matches nothing expected, missed
/// otherwise; every reading that matches nothing expected is a false reading.
public enum SeerScoring {
    /// Scores the texts read against the texts expected.
    public static func score(expected: [String], read: [String], normalise: (String) -> String) -> PhotoScore {
        let want = expected.map { normalise(TextScoring.stripNewline($0)) }
        let got = read.map { normalise(TextScoring.stripNewline($0)) }.filter { !$0.isEmpty }
        var s = PhotoScore()
        s.expected = want.count
        s.falseReadings = got.filter { !want.contains($0) }.count
        for w in want {
            if got.contains(w) {
                s.correct += 1
            } else if s.falseReadings > 0 {
                s.wrong += 1
            } else {
                s.missed += 1
            }
        }
        if want.isEmpty {
            s.outcome = s.falseReadings > 0 ? .falseReading : .clean
        } else if s.correct == want.count {
            s.outcome = .correct
        } else {
            s.outcome = s.wrong > 0 ? .wrong : .missed
        }
        return s
    }
}

/// A small CSV reader: commas, double-quoted fields with `""` escapes, `\n` or `\r\n` rows.
enum CSV {
    static func parse(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var chars = Array(text.unicodeScalars)[...]
        while let c = chars.popFirst() {
            if quoted {
                if c == "\"" {
                    if chars.first == "\"" {
                        field.unicodeScalars.append("\"")
                        chars = chars.dropFirst()
                    } else {
                        quoted = false
                    }
                } else {
                    field.unicodeScalars.append(c)
                }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                row.append(field)
                field = ""
            } else if c == "\n" || c == "\r" {
                if c == "\r", chars.first == "\n" { chars = chars.dropFirst() }
                row.append(field)
                field = ""
                if !(row.count == 1 && row[0].isEmpty) { rows.append(row) }
                row = []
            } else {
                field.unicodeScalars.append(c)
            }
        }
        if !field.isEmpty || !row.isEmpty {
            row.append(field)
            rows.append(row)
        }
        return rows
    }
}
