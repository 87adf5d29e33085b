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

OCRThreads.limitToOnePerWorker()
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
