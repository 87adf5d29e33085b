// Soak: many concurrent scans (decode + codes + plates) in one process for a given time, over real
// photos in every format and the malformed corpus mixed in. Samples resident memory and open file
// descriptors every few seconds and reports their growth after warm-up (memory as the floor between
// the peaks of the decodes in flight: each minute's lowest sample).
//
//     swift build -c release --package-path Benchmarks --product soak-bench
//     Benchmarks/.build/release/soak-bench [--seconds 300]
//         [--workers N] [--warmup 60] FOLDER...
//
// Each worker is a thread with its own loop over the files (shuffled with a fixed seed); the Engine
// is shared, as a server shares it. Prints one line per sample (seconds, scans done, errors, RSS
// MiB, open fds) and a summary: growth of RSS and fds from the end of warm-up to the end.
import Foundation
import Seer

#if canImport(Glibc)
import Glibc
#endif

func option(_ arguments: inout [String], _ name: String, _ fallback: Int) -> Int {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count, let v = Int(arguments[i + 1]) else { return fallback }
    arguments.removeSubrange(i...(i + 1))
    return v
}
var rest = Array(CommandLine.arguments.dropFirst())
let seconds = option(&rest, "--seconds", 300)
let workers = option(&rest, "--workers", ProcessInfo.processInfo.activeProcessorCount * 2)
let warmup = option(&rest, "--warmup", 60)
let folders = rest
let imageExtensions: Set<String> = ["png", "jpg", "jpeg", "heic", "webp"]
let files: [String] = folders.flatMap { folder in
    let items = FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []
    return items.filter { imageExtensions.contains(($0 as NSString).pathExtension.lowercased()) }.map { "\(folder)/\($0)" }
}
guard !files.isEmpty else {
    print("soak-bench: no photos in \(folders)")
    exit(0)
}

func residentMiB() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    return fields.count > 1 ? Double(fields[1])! * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576 : 0
}
func openFDs() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1 }

final class Counters: @unchecked Sendable {
    let lock = NSLock()
    var scans = 0, errors = 0
    func add(error: Bool) {
        lock.lock()
        scans += 1
        if error { errors += 1 }
        lock.unlock()
    }
}
let counters = Counters()
let engine = Engine()
let deadline = Date().addingTimeInterval(Double(seconds))
print("soak: \(files.count) files, \(workers) workers, \(seconds) s (warm-up \(warmup) s)")
var threads: [Thread] = []
for w in 0..<workers {
    let thread = Thread {
        var order = files
        var state = UInt64(w + 1) &* 0x9E37_79B9_7F4A_7C15
        for i in stride(from: order.count - 1, to: 0, by: -1) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            order.swapAt(i, Int(state >> 33) % (i + 1))
        }
        var i = 0
        while Date() < deadline {
            let file = order[i % order.count]
            i += 1
            do {
                _ = try engine.scanPhoto(contentsOf: file, reading: .all)
                counters.add(error: false)
            } catch {
                counters.add(error: true)
            }
        }
    }
    thread.stackSize = 8 << 20
    threads.append(thread)
    thread.start()
}
let start = Date()
var samples: [(t: Double, rss: Double, fds: Int)] = []
while Date() < deadline.addingTimeInterval(1) {
    sleep(5)
    let t = Date().timeIntervalSince(start)
    let sample = (t, residentMiB(), openFDs())
    samples.append(sample)
    counters.lock.lock()
    let (scans, errors) = (counters.scans, counters.errors)
    counters.lock.unlock()
    print(String(format: "%6.0f s  %7d scans  %6d errors  %7.1f MiB  %3d fds", t, scans, errors, sample.1, sample.2))
}
// Memory between the peaks of decodes in flight: the lowest sample of each minute. Compared from
// the first minute after warm-up to the last, as the sample at one instant may land on a peak.
var minutes: [Int: (floor: Double, peak: Double)] = [:]
for sample in samples where sample.t <= Double(seconds) {
    let minute = Int(sample.t / 60)
    let old = minutes[minute] ?? (floor: Double.infinity, peak: 0)
    minutes[minute] = (min(old.floor, sample.rss), max(old.peak, sample.rss))
}
for minute in minutes.keys.sorted() {
    let m = minutes[minute]!
    print(String(format: "minute %2d: floor %.1f MiB, peak %.1f MiB", minute, m.floor, m.peak))
}
let after = minutes.keys.filter { $0 * 60 >= warmup }.sorted()
if let first = after.first, let last = after.last, let fdsFirst = samples.first(where: { $0.t >= Double(warmup) })?.fds,
    let fdsLast = samples.last?.fds
{
    let a: Double = minutes[first]!.floor
    let b: Double = minutes[last]!.floor
    let peak: Double = after.map { minutes[$0]!.peak }.max() ?? 0
    let growth: Double = (b / a - 1) * 100
    print(String(
        format: "after warm-up: memory floor %.1f → %.1f MiB (%+.1f %%), peak %.1f MiB; fds %d → %d",
        a, b, growth, peak, fdsFirst, fdsLast))
}
