// Accuracy and timing of plate reading over the OpenALPR benchmark photos.
//
//     swift build -c release --package-path Benchmarks --product plate-bench
//     Benchmarks/.build/release/plate-bench [DATA_DIR] [--sets us,eu,br] [--part tune|check|all] [--auto]
//         [--recognizers glyphs,sequence,combined,rescored] [--sequence-weight W] [--sequence-model FILE.spr] [--verbose]
//
// DATA_DIR defaults to ../shared/testdata/plates (or $SEER_PLATES_DATA). When the folder is absent
// the command says so and exits 0. Per set and recogniser (each photo is decoded once and read by
// every recogniser given, one after the other, so they are measured side by side in one run):
// exact top reading, truth within the top 5 candidates, plate found (a reading's box overlaps the
// truth box), median and mean milliseconds of plate reading per photo (decode excluded, one
// thread): wall clock, and the thread's CPU time, which is what one core spends and is less
// disturbed by other work on the machine. `--auto` reads with no region (`--region auto`),
// otherwise with the set's region.
//
// `--part` picks the validation split (docs/plates.md): a photo is in `tune` when the FNV-1a hash
// (32 bit) of its file name is even, in `check` when odd. Tuning looks at `tune` only.
//
// `--time-recognizer` times the sequence recogniser alone on rows of plate widths.
import Foundation
import Seer

var arguments = Array(CommandLine.arguments.dropFirst())
var sets = ["us", "eu", "br"]
var verbose = false
if let i = arguments.firstIndex(of: "--sets"), i + 1 < arguments.count {
    sets = arguments[i + 1].split(separator: ",").map(String.init)
    arguments.removeSubrange(i...(i + 1))
}
if let i = arguments.firstIndex(of: "--verbose") {
    verbose = true
    arguments.remove(at: i)
}
var splitPart = "all"
if let i = arguments.firstIndex(of: "--part"), i + 1 < arguments.count {
    splitPart = arguments[i + 1]
    arguments.removeSubrange(i...(i + 1))
    guard ["tune", "check", "all"].contains(splitPart) else {
        print("plate-bench: --part takes tune, check or all")
        exit(64)
    }
}
var auto = false
if let i = arguments.firstIndex(of: "--auto") {
    auto = true
    arguments.remove(at: i)
}
var timeRecognizer = false
if let i = arguments.firstIndex(of: "--time-recognizer") {
    timeRecognizer = true
    arguments.remove(at: i)
}
var recognizers: [PlateReader.Recognizer] = [PlateReader.Recognizer.defaultRecognizer]
if let i = arguments.firstIndex(of: "--recognizers"), i + 1 < arguments.count {
    let names = arguments[i + 1].split(separator: ",").map(String.init)
    recognizers = names.compactMap(PlateReader.Recognizer.init(rawValue:))
    arguments.removeSubrange(i...(i + 1))
    guard recognizers.count == names.count, !names.isEmpty else {
        print("plate-bench: --recognizers takes glyphs, sequence, combined, rescored, automatic")
        exit(64)
    }
}
// `--sequence-model FILE`: the sequence recogniser's weights from FILE instead of the shipped ones.
var sequenceModel: SequenceRecognizer?
if let i = arguments.firstIndex(of: "--sequence-model"), i + 1 < arguments.count {
    guard let model = SequenceRecognizer(contentsOf: arguments[i + 1]) else {
        print("plate-bench: \(arguments[i + 1]) is not a sequence recogniser's weights")
        exit(64)
    }
    sequenceModel = model
    arguments.removeSubrange(i...(i + 1))
}
var sequenceWeight: Double?
// `--grammar FILE`: plate grammars read from FILE (the format of grammars.txt) instead of the shipped ones.
var grammar = PlateGrammar.standard
if let i = arguments.firstIndex(of: "--grammar"), i + 1 < arguments.count {
    do {
        grammar = try PlateGrammar(source: String(contentsOfFile: arguments[i + 1], encoding: .utf8))
    } catch {
        print("plate-bench: \(arguments[i + 1]): \(error)")
        exit(64)
    }
    arguments.removeSubrange(i...(i + 1))
}
if let i = arguments.firstIndex(of: "--sequence-weight"), i + 1 < arguments.count {
    sequenceWeight = Double(arguments[i + 1])
    arguments.removeSubrange(i...(i + 1))
}
// `--findings OUT.jsonl [--region R] PATH…`: every reading before the confidence cut, with its
// evidence and the confidence the shipped model gives it, one JSON line each; in a plate set (a
// folder with truth.csv) labelled right or wrong against the truth, anywhere else (photos with no
// plate) wrong. For calibrating confidence. The first of `--recognizers` reads (default glyphs).
if let i = arguments.firstIndex(of: "--findings"), i + 1 < arguments.count {
    let out = arguments[i + 1]
    arguments.removeSubrange(i...(i + 1))
    var region: PlateRegion?
    if let j = arguments.firstIndex(of: "--region"), j + 1 < arguments.count {
        region = PlateRegion(rawValue: arguments[j + 1])
        arguments.removeSubrange(j...(j + 1))
    }
    var options = PlateReader.Options(recognizer: recognizers[0])
    if let w = sequenceWeight { options.sequenceWeight = w }
    options.sequenceRecognizer = sequenceModel
    dumpFindings(to: out, region: region, options: options, grammar: grammar, paths: arguments)
    exit(0)
}

func dumpFindings(to out: String, region: PlateRegion?, options: PlateReader.Options, grammar: PlateGrammar, paths: [String]) {
    let engine = Engine()
    guard let reader = try? PlateReader(options: options, grammar: grammar) else {
        print("plate-bench: no plate reader")
        exit(1)
    }
    _ = FileManager.default.createFile(atPath: out, contents: nil)
    guard let handle = FileHandle(forWritingAtPath: out) else { exit(1) }
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    struct Line: Encodable {
        var set: String, file: String, truth: String?, text: String, right: Bool, onPlate: Bool, box: [Double], confidence: Double, evidence: PlateEvidence, candidates: [String]
    }
    for path in paths {
        var photos: [(file: String, truth: String?, box: [Double]?)] = []
        if let csv = try? String(contentsOfFile: "\(path)/truth.csv", encoding: .utf8) {
            for line in csv.split(whereSeparator: \.isNewline).dropFirst() {
                let f = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                guard f.count >= 6 else { continue }
                photos.append(("\(path)/\(f[0])", PlateGrammar.clean(f[1]), f[2...5].compactMap { Double($0) }))
            }
        } else if let walker = FileManager.default.enumerator(atPath: path) {
            for case let name as String in walker where [".jpg", ".jpeg", ".png"].contains(where: { name.lowercased().hasSuffix($0) }) {
                photos.append(("\(path)/\(name)", nil, nil))
            }
            photos.sort { $0.file < $1.file }
        }
        for photo in photos {
            guard let image = try? engine.decode(contentsOf: photo.file),
                let found = try? reader.findings(image.gray, region: region, scaleX: image.scaleX, scaleY: image.scaleY)
            else { continue }
            for f in found {
                var onPlate = false
                if let b = photo.box, b.count == 4 {
                    let p = f.reading.box
                    onPlate = min(p[0] + p[2], b[0] + b[2]) > max(p[0], b[0]) && min(p[1] + p[3], b[1] + b[3]) > max(p[1], b[1])
                }
                let line = Line(
                    set: path, file: photo.file, truth: photo.truth, text: f.reading.text, right: f.reading.text == photo.truth && onPlate,
                    onPlate: onPlate, box: f.reading.box, confidence: f.reading.confidence, evidence: f.evidence, candidates: f.reading.candidates.map(\.text))
                if let data = try? encoder.encode(line) { handle.write(data + Data("\n".utf8)) }
            }
            if found.isEmpty, let data = try? JSONSerialization.data(withJSONObject: ["set": path, "file": photo.file, "none": true]) {
                handle.write(data + Data("\n".utf8))
            }
        }
    }
    try? handle.close()
}

let data = arguments.first ?? ProcessInfo.processInfo.environment["SEER_PLATES_DATA"] ?? "../shared/testdata/plates"
guard FileManager.default.fileExists(atPath: data) else {
    print("plate-bench: \(data) not found; skipping")
    exit(0)
}

func cpuMilliseconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1e6
}

/// The validation split: FNV-1a (32 bit) of the file name, even = tune, odd = check.
func part(of name: String) -> String {
    var h: UInt32 = 0x811c_9dc5
    for b in name.utf8 {
        h ^= UInt32(b)
        h = h &* 0x0100_0193
    }
    return h % 2 == 0 ? "tune" : "check"
}

if timeRecognizer {
    guard let recognizer = sequenceModel ?? SequenceRecognizer.standard else {
        print("plate-bench: no sequence recogniser")
        exit(1)
    }
    print("| row width px (glyphs 40 px) | output columns | median CPU ms | mean CPU ms |")
    print("|---|---|---|---|")
    for width in [160, 240, 320, 480] {
        var pixels = [UInt8](repeating: 200, count: width * 88)
        for i in pixels.indices where (i % width / 12 + i / width / 10) % 2 == 0 { pixels[i] = 40 }
        let row = GrayImage(width: width, height: 88, pixels: pixels)
        var cpu: [Double] = []
        var columns = 0
        for _ in 0..<200 {
            let start = cpuMilliseconds()
            columns = recognizer.columns(row).count
            cpu.append(cpuMilliseconds() - start)
        }
        cpu.sort()
        print("| \(width) | \(columns) | \(String(format: "%.2f", cpu[cpu.count / 2])) | \(String(format: "%.2f", cpu.reduce(0, +) / Double(cpu.count))) |")
    }
    exit(0)
}

let engine = Engine()
var readers: [(name: String, reader: PlateReader)] = []
do {
    for r in recognizers {
        var options = PlateReader.Options(recognizer: r)
        if let w = sequenceWeight { options.sequenceWeight = w }
        options.sequenceRecognizer = sequenceModel
        readers.append((r.rawValue, try PlateReader(options: options, grammar: grammar)))
    }
} catch {
    print("plate-bench: \(error)")
    exit(1)
}
var allFailures: [(set: String, reader: String, n: Int, counts: [String: Int])] = []
print("| set | part | region | recogniser | n | exact % | top-5 % | found % | median ms | mean ms | median CPU ms | mean CPU ms |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for set in sets {
    let csvPath = "\(data)/\(set)/truth.csv"
    guard let csv = try? String(contentsOfFile: csvPath, encoding: .utf8) else { continue }
    var n = 0
    var exact = [Int](repeating: 0, count: readers.count), top5 = exact, found = exact
    var times = [[Double]](repeating: [], count: readers.count), cpu = times
    var failures = [[String: Int]](repeating: [:], count: readers.count)
    for line in csv.split(whereSeparator: \.isNewline).dropFirst() {
        let f = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard f.count >= 6, let x = Double(f[2]), let y = Double(f[3]), let w = Double(f[4]), let h = Double(f[5]) else { continue }
        if splitPart != "all" && part(of: f[0]) != splitPart { continue }
        let truth = PlateGrammar.clean(f[1])
        n += 1
        guard let image = try? engine.decode(contentsOf: "\(data)/\(set)/\(f[0])") else { continue }
        let region = auto ? nil : PlateRegion(rawValue: set)
        for (k, r) in readers.enumerated() {
            let start = DispatchTime.now().uptimeNanoseconds
            let startCPU = cpuMilliseconds()
            let all = (try? r.reader.findings(image.gray, region: region, scaleX: image.scaleX, scaleY: image.scaleY)) ?? []
            times[k].append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            cpu[k].append(cpuMilliseconds() - startCPU)
            let plates = all.map(\.reading).filter { $0.confidence >= r.reader.options.minimumConfidence }
            let top = plates.first?.text ?? ""
            if top == truth { exact[k] += 1 }
            if plates.first?.candidates.prefix(5).contains(where: { $0.text == truth }) == true { top5[k] += 1 }
            func onPlate(_ p: PlateReading) -> Bool {
                let b = p.box
                return min(b[0] + b[2], x + w) > max(b[0], x) && min(b[1] + b[3], y + h) > max(b[1], y)
            }
            let overlaps = plates.contains(where: onPlate)
            if overlaps { found[k] += 1 }
            let failure = PlateOutcome.classify(
                truth: truth, box: [x, y, w, h], readings: all.map(\.reading), minimumConfidence: r.reader.options.minimumConfidence
            ).rawValue
            failures[k][failure, default: 0] += 1
            if verbose {
                print("\(set) \(r.name) \(f[0]) truth=\(truth) top=\(top) \(top == truth ? "OK" : "--") found=\(overlaps) cands=\(plates.first?.candidates.map(\.text) ?? []) all=\(plates.map(\.text)) \(Int(times[k].last!))ms")
            }
        }
    }
    guard n > 0 else { continue }
    func pct(_ k: Int) -> String { String(format: "%.1f", 100 * Double(k) / Double(n)) }
    for (k, r) in readers.enumerated() where !cpu[k].isEmpty {
        let t = times[k].sorted(), c = cpu[k].sorted()
        allFailures.append((set, r.name, n, failures[k]))
        print("| \(set) | \(splitPart) | \(auto ? "auto" : set) | \(r.name) | \(n) | \(pct(exact[k])) | \(pct(top5[k])) | \(pct(found[k])) | \(String(format: "%.0f", t[t.count / 2])) | \(String(format: "%.0f", t.reduce(0, +) / Double(t.count))) | \(String(format: "%.0f", c[c.count / 2])) | \(String(format: "%.0f", c.reduce(0, +) / Double(c.count))) |")
    }
}
let classes = PlateOutcome.allCases.map(\.rawValue)
print("")
print("| set | recogniser | n | " + classes.joined(separator: " | ") + " |")
print("|---|---|---|" + classes.map { _ in "---|" }.joined())
for f in allFailures {
    print("| \(f.set) | \(f.reader) | \(f.n) | " + classes.map { "\(f.counts[$0] ?? 0)" }.joined(separator: " | ") + " |")
}
