// Accuracy and timing of plate reading over the OpenALPR benchmark photos.
//
//     swift run -c release plate-bench [DATA_DIR] [--sets us,eu,br] [--verbose]
//
// DATA_DIR defaults to ../shared/testdata/plates (or $SEER_PLATES_DATA). When the folder is absent
// the command says so and exits 0. Per set: exact top reading, truth within the top 5 candidates,
// plate found (a reading's box overlaps the truth box), median and mean milliseconds per photo
// (decode + locate + read, one thread): wall clock, and the thread's CPU time, which is what one core
// spends and is less disturbed by other work on the machine.
import Foundation
import Seer
import SeerPlate

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
// `--findings OUT.jsonl [--region R] PATH…`: every reading before the confidence cut, with its
// evidence, one JSON line each; in a plate set (a folder with truth.csv) labelled right or wrong
// against the truth, anywhere else (photos with no plate) wrong. For calibrating confidence.
if let i = arguments.firstIndex(of: "--findings"), i + 1 < arguments.count {
    let out = arguments[i + 1]
    arguments.removeSubrange(i...(i + 1))
    var region: PlateRegion?
    if let j = arguments.firstIndex(of: "--region"), j + 1 < arguments.count {
        region = PlateRegion(rawValue: arguments[j + 1])
        arguments.removeSubrange(j...(j + 1))
    }
    dumpFindings(to: out, region: region, paths: arguments)
    exit(0)
}

func dumpFindings(to out: String, region: PlateRegion?, paths: [String]) {
    let engine = Engine()
    guard let reader = try? engine.plateReader() else {
        print("plate-bench: no plate reader")
        exit(1)
    }
    _ = FileManager.default.createFile(atPath: out, contents: nil)
    guard let handle = FileHandle(forWritingAtPath: out) else { exit(1) }
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    struct Line: Encodable {
        var set: String, file: String, truth: String?, text: String, right: Bool, onPlate: Bool, box: [Double], evidence: PlateEvidence, candidates: [String]
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
                    onPlate: onPlate, box: f.reading.box, evidence: f.evidence, candidates: f.reading.candidates.map(\.text))
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

let engine = Engine()
do { _ = try engine.plateReader() } catch {
    print("plate-bench: \(error)")
    exit(1)
}
func cpuMilliseconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1e6
}
print("| set | n | exact % | top-5 % | found % | median ms | mean ms | median CPU ms | mean CPU ms |")
print("|---|---|---|---|---|---|---|---|---|")
for set in sets {
    let csvPath = "\(data)/\(set)/truth.csv"
    guard let csv = try? String(contentsOfFile: csvPath, encoding: .utf8) else { continue }
    var n = 0, exact = 0, top5 = 0, found = 0
    var times: [Double] = []
    var cpu: [Double] = []
    for line in csv.split(whereSeparator: \.isNewline).dropFirst() {
        let f = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard f.count >= 6, let x = Double(f[2]), let y = Double(f[3]), let w = Double(f[4]), let h = Double(f[5]) else { continue }
        let truth = PlateGrammar.clean(f[1])
        n += 1
        let start = DispatchTime.now().uptimeNanoseconds
        let startCPU = cpuMilliseconds()
        let plates = (try? engine.readPlates(contentsOf: "\(data)/\(set)/\(f[0])", region: PlateRegion(rawValue: set))) ?? []
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        cpu.append(cpuMilliseconds() - startCPU)
        let top = plates.first?.text ?? ""
        if top == truth { exact += 1 }
        if plates.first?.candidates.prefix(5).contains(where: { $0.text == truth }) == true { top5 += 1 }
        let overlaps = plates.contains { p in
            let b = p.box
            return min(b[0] + b[2], x + w) > max(b[0], x) && min(b[1] + b[3], y + h) > max(b[1], y)
        }
        if overlaps { found += 1 }
        if verbose {
            print("\(set) \(f[0]) truth=\(truth) top=\(top) \(top == truth ? "OK" : "--") found=\(overlaps) cands=\(plates.first?.candidates.map(\.text) ?? []) all=\(plates.map(\.text)) \(Int(times.last!))ms")
        }
    }
    guard n > 0 else { continue }
    times.sort()
    cpu.sort()
    func pct(_ k: Int) -> String { String(format: "%.1f", 100 * Double(k) / Double(n)) }
    print("| \(set) | \(n) | \(pct(exact)) | \(pct(top5)) | \(pct(found)) | \(String(format: "%.0f", times[n / 2])) | \(String(format: "%.0f", times.reduce(0, +) / Double(n))) | \(String(format: "%.0f", cpu[n / 2])) | \(String(format: "%.0f", cpu.reduce(0, +) / Double(n))) |")
}
