import Foundation
import SeerQR

/// What peers need to know about the run.
public struct PeerContext: Sendable {
    /// Codes or plates.
    public var read: BenchOptions.Read
    /// The symbologies Seer reads (peers read the same where they can).
    public var symbologies: Set<Symbology>
    /// Runs per photo (the fastest is kept).
    public var repeatCount: Int
    /// Folders to look for `scripts/peers/zxing_peer.py` in (and their parents).
    public var helperSearchPaths: [String]
}

/// What a peer read in one photo.
public struct PeerAnswer: Sendable {
    /// Codes (corners in the stored grid where the peer gives them).
    public var codes: [BenchReading] = []
    /// Plates, top first.
    public var plates: [String] = []
    /// The whole standard output of a command-line code reader (one more candidate text for QR text truth).
    public var wholeOutput: String?
    /// Wall-clock milliseconds (fastest of the repeats).
    public var milliseconds: Double?
    /// Of them, loading the photo (where the peer tells).
    public var decodeMilliseconds: Double?
    /// What went wrong.
    public var error: String?
}

/// A peer working on one thread: `read` is called for photo after photo.
public final class PeerSession {
    let reader: (BenchItem) -> PeerAnswer
    let closer: () -> Void

    init(read: @escaping (BenchItem) -> PeerAnswer, close: @escaping () -> Void = {}) {
        self.reader = read
        self.closer = close
    }

    deinit { closer() }

    /// Reads one photo.
    public func read(_ item: BenchItem) -> PeerAnswer { reader(item) }
}

/// Another reader run over the same photos.
public struct Peer: Sendable {
    /// The name used in `--peers` and reports.
    public var name: String
    /// How to install it.
    public var install: String
    let fitsRead: @Sendable (PeerContext) -> Bool
    let probe: @Sendable (PeerContext) -> String?
    let start: @Sendable (PeerContext) -> PeerSession?

    /// Whether it reads what the run reads.
    public func fits(_ context: PeerContext) -> Bool { fitsRead(context) }
    /// Its version and how it runs and is timed, or nil when it is not installed.
    public func available(_ context: PeerContext) -> String? { probe(context) }
    /// A session for one thread, nil when it cannot start.
    public func session(_ context: PeerContext) -> PeerSession? { start(context) }
}

/// The peers Seer is measured against.
public enum Peers {
    /// zbarimg, zxing-cpp, tesseract.
    public static let all: [Peer] = [zbarimg, zxingCpp, tesseract]

    /// The peer with this name (`zxing` is zxing-cpp).
    public static func named(_ name: String) -> Peer? {
        let n = name == "zxing" || name == "zxingcpp" ? "zxing-cpp" : name
        return all.first { $0.name == n }
    }

    // MARK: zbarimg

    /// zbarimg's `-S` options for the symbologies (none: zbar's defaults, every symbology).
    static func zbarOptions(_ symbologies: Set<Symbology>) -> [String] {
        if symbologies == Set(Symbology.allCases) { return [] }
        let names: [Symbology: String] = [
            .qr: "qrcode", .ean13: "ean13", .ean8: "ean8", .upca: "upca", .upce: "upce", .code128: "code128", .code39: "code39",
            .i25: "i25", .databar: "databar", .databarExpanded: "databar-exp",
            .codabar: "codabar", .code93: "code93",
        ]
        return ["-Sdisable"] + symbologies.compactMap { names[$0] }.sorted().map { "-S\($0).enable" }
    }

    /// `zbarimg -q --raw` (Debian's zbar-tools): whole-process time, one output line per code, no positions.
    public static let zbarimg = Peer(
        name: "zbarimg", install: "apt-get install zbar-tools",
        fitsRead: { $0.read == .codes },
        probe: { _ in
            guard let v = Command.run(["zbarimg", "--version"]), v.status == 0 else { return nil }
            return "zbarimg \(v.out.trimmingCharacters(in: .whitespacesAndNewlines)): `zbarimg -q --raw`, whole process timed"
        },
        start: { context in
            let options = zbarOptions(context.symbologies)
            return PeerSession { item in
                var answer = PeerAnswer()
                guard let run = Command.timed(["zbarimg", "-q", "--raw"] + options + [item.path], repeatCount: context.repeatCount) else {
                    answer.error = "zbarimg could not be run"
                    return answer
                }
                answer.milliseconds = run.milliseconds
                if run.status != 0 && run.status != 4 { answer.error = "zbarimg exit \(run.status)" }
                var lines = run.out.components(separatedBy: "\n")
                if lines.last == "" { lines.removeLast() }
                answer.codes = lines.map { BenchReading(text: $0.hasSuffix("\r") ? String($0.dropLast()) : $0) }
                if !run.out.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { answer.wholeOutput = run.out }
                return answer
            }
        })

    // MARK: tesseract

    static let whitelist = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

    /// The `tesseract` command on the whole photo, `--psm 11` (sparse text), A–Z 0–9 only; the plate
    /// is picked from its words as `score_plates.py` picks it (tallest, most confident text of plate length).
    public static let tesseract = Peer(
        name: "tesseract", install: "apt-get install tesseract-ocr",
        fitsRead: { $0.read == .plates },
        probe: { _ in
            guard let v = Command.run(["tesseract", "--version"]), v.status == 0 else { return nil }
            let first = (v.out + v.err).split(separator: "\n").first.map(String.init) ?? "tesseract"
            return "\(first): `tesseract PHOTO - --psm 11 tsv` on the whole photo, plate picked as score_plates.py does, whole process timed"
        },
        start: { context in
            PeerSession { item in
                var answer = PeerAnswer()
                let argv = ["tesseract", item.path, "-", "--psm", "11", "-c", "tessedit_char_whitelist=" + whitelist, "tsv"]
                guard let run = Command.timed(argv, repeatCount: context.repeatCount, environment: ["OMP_THREAD_LIMIT": "1"]) else {
                    answer.error = "tesseract could not be run"
                    return answer
                }
                answer.milliseconds = run.milliseconds
                if run.status != 0 { answer.error = "tesseract exit \(run.status)" }
                let pick = OCRWords.pick(OCRWords.candidates(OCRWords.parseTSV(run.out)))
                answer.plates = pick.isEmpty ? [] : [pick]
                return answer
            }
        })

    // MARK: zxing-cpp

    /// The helper script, found under `scripts/peers/` of one of the search paths or their parents.
    static func zxingHelper(_ context: PeerContext) -> String? {
        for start in context.helperSearchPaths {
            var dir = start
            for _ in 0..<6 {
                let candidate = dir + "/scripts/peers/zxing_peer.py"
                if FileManager.default.fileExists(atPath: candidate) { return candidate }
                let parent = (dir as NSString).deletingLastPathComponent
                if parent == dir || parent.isEmpty { break }
                dir = parent
            }
        }
        return nil
    }

    static func zxingFormats(_ symbologies: Set<Symbology>) -> String {
        if symbologies == [.qr] { return "qr" }
        return symbologies.contains(.qr) ? "qr,linear" : "linear"
    }

    /// zxing-cpp through its Python package (`pip install zxing-cpp pillow numpy`), one helper process
    /// per job: the decode call alone is timed, on a photo Pillow loaded as grey (load timed apart).
    public static let zxingCpp = Peer(
        name: "zxing-cpp", install: "pip install zxing-cpp pillow numpy; needs scripts/peers/zxing_peer.py",
        fitsRead: { $0.read == .codes },
        probe: { context in
            guard let helper = zxingHelper(context), let v = Command.run(["python3", helper, "--version"]), v.status == 0 else { return nil }
            return "\(v.out.trimmingCharacters(in: .whitespacesAndNewlines)) in Python (\(helper)): decode call timed, Pillow load as decode"
        },
        start: { context in
            guard let helper = zxingHelper(context), let process = LineProcess(["python3", helper, "--serve"]) else { return nil }
            let formats = zxingFormats(context.symbologies)
            return PeerSession(
                read: { item in
                    var answer = PeerAnswer()
                    let request: [String: Any] = ["path": item.path, "formats": formats, "repeat": context.repeatCount]
                    guard let data = try? JSONSerialization.data(withJSONObject: request), let line = process.ask(String(decoding: data, as: UTF8.self)),
                        let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                    else {
                        answer.error = "no answer from the zxing-cpp helper"
                        return answer
                    }
                    let decode = object["ms"] as? Double, load = object["load_ms"] as? Double
                    answer.milliseconds = decode.map { $0 + (load ?? 0) }
                    answer.decodeMilliseconds = load
                    answer.error = object["error"] as? String
                    for s in object["symbols"] as? [[String: Any]] ?? [] {
                        let corners = (s["corners"] as? [[Double]] ?? []).filter { $0.count == 2 }.map { BenchPoint($0[0], $0[1]) }
                        answer.codes.append(BenchReading(format: s["format"] as? String ?? "", text: s["text"] as? String, corners: corners))
                    }
                    return answer
                }, close: { process.close() })
        })
}

/// `score_plates.py`'s way from OCR words to one plate string.
public enum OCRWords {
    /// A word: normalised text, confidence 0–1, box, and the line it is on.
    public struct Word: Sendable, Equatable {
        public var text: String
        public var confidence: Double
        public var x0, y0, x1, y1: Double
        public var line: String
        var height: Double { max(1, y1 - y0) }

        public init(text: String, confidence: Double, x0: Double, y0: Double, x1: Double, y1: Double, line: String) {
            self.text = PlateScoring.normalise(text)
            self.confidence = confidence
            self.x0 = x0
            self.y0 = y0
            self.x1 = x1
            self.y1 = y1
            self.line = line
        }
    }

    /// Words of `tesseract … tsv` output (level-5 rows with text).
    public static func parseTSV(_ tsv: String) -> [Word] {
        tsv.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).dropFirst().compactMap { row in
            let f = row.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 12, f[0] == "5", !f[11].trimmingCharacters(in: .whitespaces).isEmpty,
                let x = Int(f[6]), let y = Int(f[7]), let w = Int(f[8]), let h = Int(f[9]), let conf = Double(f[10])
            else { return nil }
            return Word(
                text: f[11], confidence: max(0, conf) / 100, x0: Double(x), y0: Double(y), x1: Double(x + w), y1: Double(y + h),
                line: "\(f[2]) \(f[3]) \(f[4])")
        }
    }

    /// Candidates: each word and runs of up to 3 neighbouring words on a line, scored by mean
    /// confidence × height / tallest height.
    public static func candidates(_ all: [Word]) -> [(text: String, score: Double)] {
        let words = all.filter { !$0.text.isEmpty }
        guard let hmax = words.map(\.height).max() else { return [] }
        var order: [String] = []
        var lines: [String: [Word]] = [:]
        for w in words {
            if lines[w.line] == nil { order.append(w.line) }
            lines[w.line, default: []].append(w)
        }
        var out: [(String, Double)] = []
        for key in order {
            let line = lines[key]!.enumerated().sorted { ($0.element.x0, $0.offset) < ($1.element.x0, $1.offset) }.map(\.element)
            for i in line.indices {
                for j in i..<min(i + 3, line.count) {
                    if j > i {
                        let a = line[j - 1], b = line[j]
                        if b.x0 - a.x1 > 1.5 * max(a.height, b.height) { break }
                    }
                    let run = line[i...j]
                    let text = run.map(\.text).joined()
                    let conf = run.reduce(0.0) { $0 + $1.confidence * Double($1.text.count) } / Double(text.count)
                    let h = run.map(\.height).min()!
                    out.append((text, conf * h / hmax))
                }
            }
        }
        return out
    }

    /// The candidate of plate length (4–8) with the best score, else the longest.
    public static func pick(_ candidates: [(text: String, score: Double)]) -> String {
        let plausible = candidates.filter { (4...8).contains($0.text.count) }
        if var best = plausible.first {
            for c in plausible.dropFirst() where c.score > best.score { best = c }
            return best.text
        }
        guard var longest = candidates.first else { return "" }
        for c in candidates.dropFirst() where c.text.count > longest.text.count { longest = c }
        return longest.text
    }
}

/// Running commands.
enum Command {
    struct Result {
        var status: Int32
        var out: String
        var err: String
        var milliseconds: Double
    }

    /// Runs a command (found on PATH) to its end; nil when it cannot start.
    static func run(_ argv: [String], environment: [String: String] = [:]) -> Result? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = argv
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let start = ContinuousClock.now
        do { try process.run() } catch { return nil }
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        group.wait()
        let d = ContinuousClock.now - start
        // env exits 127 when the command is not found.
        if process.terminationStatus == 127 { return nil }
        func text(_ data: Data) -> String {
            String(data: data, encoding: .utf8) ?? String(data.map { Character(Unicode.Scalar($0)) })
        }
        return Result(
            status: process.terminationStatus, out: text(outData), err: text(errData),
            milliseconds: Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15)
    }

    /// Runs a command `repeatCount` times: the first run's output, the fastest run's time.
    static func timed(_ argv: [String], repeatCount: Int, environment: [String: String] = [:]) -> Result? {
        guard var first = run(argv, environment: environment) else { return nil }
        for _ in 1..<max(1, repeatCount) {
            if let again = run(argv, environment: environment) { first.milliseconds = min(first.milliseconds, again.milliseconds) }
        }
        return first
    }
}

/// A long-running helper process spoken to one line at a time.
final class LineProcess: @unchecked Sendable {
    let process = Process()
    let input = Pipe()
    let output = Pipe()
    var buffer = Data()

    init?(_ argv: [String]) {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = argv
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
    }

    /// Sends one line and waits for one line back; nil when the process has gone.
    func ask(_ line: String) -> String? {
        guard process.isRunning else { return nil }
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
        while true {
            if let nl = buffer.firstIndex(of: 10) {
                let answer = buffer[buffer.startIndex..<nl]
                buffer = Data(buffer[(nl + 1)...])
                return String(decoding: answer, as: UTF8.self)
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    func close() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
