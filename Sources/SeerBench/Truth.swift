import Foundation

/// How ground truth is written beside the photos of a folder.
public enum TruthFormat: String, Sendable, Codable, CaseIterable {
    /// Detect per folder: `truth.csv` with a `plate_text` column is ``plates``, `seer-truth.tsv` is
    /// ``seer``, `.txt` files of corner coordinates are ``boofcv``, other `.txt` files are ``text``.
    case auto
    /// `N.png` with `N.txt` (or `N.bin`) holding the exact expected text of the photo's one code
    /// (ZXing's black-box layout); folders named `falsepositives-*` hold photos with no code.
    case text
    /// `imageNNN.jpg` with `imageNNN.txt`: the corners of every QR code in the photo (BoofCV's QR
    /// benchmark), in the stored pixel grid.
    case boofcv
    /// `truth.csv` (`file,plate_text,x,y,w,h`): one plate per photo (OpenALPR's benchmark layout).
    case plates
    /// `seer-truth.tsv`: `FILE<TAB>TEXT` lines, one per code or plate expected in the photo, several
    /// lines for several; a line with `FILE` alone says the photo holds nothing to read. `#` starts a
    /// comment line.
    case seer
}

/// The expected text of a photo in the ``TruthFormat/text`` format.
public enum ExpectedText: Sendable, Equatable {
    /// A `.txt` file: UTF-8 text, one trailing newline dropped.
    case text(String)
    /// A `.bin` file: raw bytes, one trailing newline dropped.
    case bytes([UInt8])
}

/// What a photo is known to hold.
public enum Truth: Sendable, Equatable {
    /// One code with this text (``TruthFormat/text``).
    case text(ExpectedText)
    /// No code at all: anything read is a false reading (`falsepositives-*` folders).
    case nothing
    /// QR codes at these quadrilaterals (stored pixel grid), texts unknown (``TruthFormat/boofcv``).
    case quads([[BenchPoint]])
    /// One licence plate with this text, normalised to A–Z and 0–9 (``TruthFormat/plates``).
    case plate(String)
    /// These texts, any number (``TruthFormat/seer``).
    case texts([String])
}

/// A point in pixels.
public struct BenchPoint: Sendable, Equatable, Codable {
    /// Horizontal coordinate.
    public var x: Double
    /// Vertical coordinate.
    public var y: Double

    /// Creates a point.
    public init(_ x: Double, _ y: Double) {
        self.x = x
        self.y = y
    }
}

/// One photo to measure, with its ground truth.
public struct BenchItem: Sendable, Equatable {
    /// The photo's path.
    public var path: String
    /// The folder it belongs to, as named in reports (its path below the folder given, or its name).
    public var category: String
    /// The format its truth was read in.
    public var format: TruthFormat
    /// What it holds.
    public var truth: Truth
    /// Where its plate is (x, y, width, height in the displayed photo's pixels), when `truth.csv`
    /// gives it: tells the plate failure classes apart (``PlateOutcome``).
    public var plateBox: [Double]? = nil
}

/// A ground-truth file that cannot be read.
public struct TruthError: Error, CustomStringConvertible, Equatable {
    /// The file.
    public var file: String
    /// What is wrong.
    public var reason: String

    public var description: String { "\(file): \(reason)" }
}

/// Finds photos and their ground truth below folders.
public enum TruthLoader {
    /// File names with these extensions are photos (the shared scoring tools' list, plus HEIC).
    public static let imageExtensions: Set<String> = ["png", "jpg", "jpeg", "webp", "gif", "bmp", "heic", "heif", "pgm"]
    /// The file of the project's own format.
    public static let seerTruthFile = "seer-truth.tsv"
    /// The plate truth file.
    public static let plateTruthFile = "truth.csv"

    /// The photos with ground truth below `paths` (each a folder or a photo), folder by folder in name
    /// order. Photos without ground truth are left out and named in `skipped`.
    public static func load(_ paths: [String], format: TruthFormat) throws -> (items: [BenchItem], skipped: [String]) {
        var items: [BenchItem] = []
        var skipped: [String] = []
        for path in paths {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
                throw TruthError(file: path, reason: "no such file or folder")
            }
            if isDir.boolValue {
                let root = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
                for folder in folders(under: root) {
                    let name = folder == root ? lastComponent(root) : String(folder.dropFirst(root.count + 1))
                    let (found, left) = try loadFolder(folder, category: name, format: format)
                    items += found
                    skipped += left
                }
            } else {
                let folder = (path as NSString).deletingLastPathComponent
                let dir = folder.isEmpty ? "." : folder
                let (found, left) = try loadFolder(dir, category: lastComponent(dir), format: format, only: lastComponent(path))
                items += found
                skipped += left
            }
        }
        return (items, skipped)
    }

    /// The last component of a path (the path itself when it has none).
    public static func lastComponent(_ path: String) -> String {
        let c = (path as NSString).lastPathComponent
        return c.isEmpty ? path : c
    }

    /// `root` and every folder below it (hidden ones skipped), in name order.
    static func folders(under root: String) -> [String] {
        var out = [root]
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
        for name in names {
            var isDir: ObjCBool = false
            let p = root + "/" + name
            if FileManager.default.fileExists(atPath: p, isDirectory: &isDir), isDir.boolValue { out += folders(under: p) }
        }
        return out
    }

    static func isImage(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: ".") else { return false }
        return imageExtensions.contains(name[name.index(after: dot)...].lowercased())
    }

    static func stem(_ name: String) -> String { (name as NSString).deletingPathExtension }

    /// The format of one folder's truth, as ``TruthFormat/auto`` decides it.
    public static func detect(folder: String, names: [String]) -> TruthFormat? {
        if names.contains(seerTruthFile) { return .seer }
        if names.contains(plateTruthFile), let header = try? String(contentsOfFile: folder + "/" + plateTruthFile, encoding: .utf8)
            .split(whereSeparator: \.isNewline).first, header.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespacesAndNewlines) }).contains("plate_text")
        {
            return .plates
        }
        let images = names.filter(isImage)
        let truthTexts = images.map { stem($0) + ".txt" }.filter(names.contains)
        guard let first = truthTexts.first else {
            return images.isEmpty ? nil : .text  // a falsepositives-* folder, or photos with no truth
        }
        if let data = FileManager.default.contents(atPath: folder + "/" + first), let text = String(data: data, encoding: .utf8),
            (try? BoofCVScoring.readQuads(text)) != nil
        {
            return .boofcv
        }
        return .text
    }

    static func loadFolder(_ folder: String, category: String, format: TruthFormat, only: String? = nil) throws -> ([BenchItem], [String]) {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
        let images = names.filter { isImage($0) && (only == nil || $0 == only) }
        guard !images.isEmpty else { return ([], []) }
        let chosen = format == .auto ? detect(folder: folder, names: names) : format
        guard let chosen else { return ([], images.map { folder + "/" + $0 }) }
        var items: [BenchItem] = []
        var skipped: [String] = []
        func add(_ name: String, _ truth: Truth?) {
            let path = folder + "/" + name
            if let truth { items.append(BenchItem(path: path, category: category, format: chosen, truth: truth)) } else { skipped.append(path) }
        }
        switch chosen {
        case .auto:
            break
        case .text:
            let noCode = TextScoring.family(ofSet: lastComponent(folder)) == .noBarcode
            for name in images {
                let base = folder + "/" + stem(name)
                if noCode {
                    add(name, .nothing)
                } else if let data = FileManager.default.contents(atPath: base + ".txt") {
                    guard let text = String(data: data, encoding: .utf8) else { throw TruthError(file: base + ".txt", reason: "not UTF-8") }
                    add(name, .text(.text(TextScoring.stripNewline(text))))
                } else if let data = FileManager.default.contents(atPath: base + ".bin") {
                    add(name, .text(.bytes(TextScoring.stripNewline([UInt8](data)))))
                } else {
                    add(name, nil)
                }
            }
        case .boofcv:
            for name in images {
                let file = folder + "/" + stem(name) + ".txt"
                guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
                    add(name, nil)
                    continue
                }
                do {
                    add(name, .quads(try BoofCVScoring.readQuads(text)))
                } catch let error as TruthError {
                    throw TruthError(file: file, reason: error.reason)
                }
            }
        case .plates:
            let file = folder + "/" + plateTruthFile
            let rows = try PlateScoring.readTruth(file)
            let boxes = try PlateScoring.readBoxes(file)
            for name in images {
                add(name, rows[name].map { .plate($0) })
                if rows[name] != nil, let box = boxes[name] { items[items.count - 1].plateBox = box }
            }
        case .seer:
            let file = folder + "/" + seerTruthFile
            let table = try SeerTruth.read(file)
            for name in images {
                add(name, table[name].map { .texts($0) })
            }
        }
        return (items, skipped)
    }
}

/// The project's own ground-truth format (``TruthFormat/seer``).
public enum SeerTruth {
    /// Reads `seer-truth.tsv`: photo name → expected texts (empty: nothing to read).
    public static func read(_ file: String) throws -> [String: [String]] {
        guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
            throw TruthError(file: file, reason: "cannot read it as UTF-8 text")
        }
        return try parse(text, file: file)
    }

    /// Parses the lines of a `seer-truth.tsv`.
    public static func parse(_ text: String, file: String = "seer-truth.tsv") throws -> [String: [String]] {
        var out: [String: [String]] = [:]
        for (number, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw[...]
            if line.trimmingCharacters(in: .whitespaces).isEmpty || line.hasPrefix("#") { continue }
            let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            if name.isEmpty { throw TruthError(file: file, reason: "line \(number + 1): no file name before the tab") }
            var texts = out[name] ?? []
            if parts.count == 2 {
                if parts[1].isEmpty { throw TruthError(file: file, reason: "line \(number + 1): empty text after the tab") }
                texts.append(String(parts[1]))
            }
            out[name] = texts
        }
        return out
    }
}
