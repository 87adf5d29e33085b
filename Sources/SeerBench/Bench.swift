import Foundation
import Seer

/// One whole bench: Seer over the photos, then the peers over the same photos, summed up.
public enum Bench {
    /// What the peers option asks for.
    public enum PeerChoice: Sendable, Equatable {
        /// Every peer that fits what is read and is installed.
        case auto
        /// None.
        case none
        /// These, by name (`zbarimg`, `zxing-cpp`, `tesseract`).
        case list([String])

        /// Parses `auto`, `none` or a comma-separated list.
        public static func parse(_ text: String) throws -> PeerChoice {
            switch text.lowercased() {
            case "auto": return .auto
            case "none", "": return .none
            default:
                let names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                for n in names where Peers.named(n) == nil {
                    throw TruthError(file: "--peers", reason: "unknown peer '\(n)'; known: \(Peers.all.map(\.name).joined(separator: ", ")), auto, none")
                }
                return .list(names.compactMap { Peers.named($0)?.name })
            }
        }
    }

    /// Runs Seer and the peers over `items`.
    /// - Parameters:
    ///   - throughputJobs: further job counts to time Seer at (photos per second only; the scored pass
    ///     is the one at ``BenchOptions/jobs``).
    ///   - progress: called with (reader, photos done, photos in the pass).
    public static func run(
        items: [BenchItem], paths: [String], options: BenchOptions, peers: PeerChoice, throughputJobs: [Int] = [], skipped: [String] = [],
        configuration: Engine.Configuration = Engine.Configuration(), helperSearchPaths: [String] = [],
        progress: @escaping @Sendable (String, Int, Int) -> Void = { _, _, _ in }
    ) throws -> (report: BenchReport, runner: BenchRunner) {
        let runner = BenchRunner(options: options, items: items, configuration: configuration)
        try runner.prepare()
        let total = items.count
        let seerRun = runner.run(items) { progress("seer", $0, total) }
        var runs = [seerRun]
        var notes: [String] = []
        var throughput = [ThroughputPoint(jobs: seerRun.jobs, photosPerSecond: ReaderSummary(seerRun, repeatCount: options.repeatCount).photosPerSecond)]
        for j in throughputJobs where j != seerRun.jobs && j >= 1 {
            let extra = runner.run(items, jobs: j) { progress("seer, \(j) jobs", $0, total) }
            throughput.append(ThroughputPoint(jobs: j, photosPerSecond: ReaderSummary(extra, repeatCount: options.repeatCount).photosPerSecond))
        }
        throughput.sort { $0.jobs < $1.jobs }

        let context = PeerContext(
            read: options.read, symbologies: runner.symbologies, repeatCount: options.repeatCount, helperSearchPaths: helperSearchPaths)
        let wanted: [Peer]
        switch peers {
        case .none: wanted = []
        case .auto: wanted = Peers.all.filter { $0.fits(context) }
        case .list(let names): wanted = names.compactMap(Peers.named)
        }
        for peer in wanted {
            if !peer.fits(context) {
                notes.append("\(peer.name) skipped: it does not read \(options.read.rawValue)")
                continue
            }
            guard let about = peer.available(context) else {
                notes.append("\(peer.name) skipped: not installed (\(peer.install))")
                continue
            }
            let start = ContinuousClock.now
            let photos = ParallelMap.run(
                items, jobs: options.jobs, progress: { progress(peer.name, $0, total) },
                makeState: { peer.session(context) },
                work: { (session: inout PeerSession?, item: BenchItem) -> PhotoResult in
                    var result = PhotoResult(
                        file: item.path, category: item.category, reader: peer.name, score: PhotoScore(), readings: [],
                        expected: BenchRunner.describe(item.truth))
                    guard let s = session else {
                        result.error = "the peer could not start"
                        result.score = BenchRunner.unread(item.truth)
                        return result
                    }
                    let answer = s.read(item)
                    result.milliseconds = answer.milliseconds
                    result.decodeMilliseconds = answer.decodeMilliseconds
                    result.error = answer.error
                    switch options.read {
                    case .codes:
                        result.score = Scoring.score(item.truth, category: item.category, codes: answer.codes, wholeOutput: answer.wholeOutput)
                        result.readings = answer.codes.map { $0.text ?? "(binary)" }
                    case .plates:
                        result.score = Scoring.score(item.truth, plates: answer.plates)
                        result.readings = answer.plates
                    }
                    return result
                })
            runs.append(
                ReaderRun(
                    reader: peer.name, about: about, photos: photos, seconds: BenchRunner.seconds(since: start), jobs: options.jobs,
                    peakMemoryMiB: Memory.peakChildrenMiB()))
            if peer.name == "zbarimg", items.contains(where: { if case .quads = $0.truth { true } else { false } }) {
                notes.append("zbarimg reports no positions, so it is not scored on corner (BoofCV) truth: its codes count as readings without position")
            }
        }
        var truth: [String: String] = [:]
        for item in items { truth[item.category] = item.format.rawValue }
        let report = BenchReport(
            paths: paths, read: options.read.rawValue, truth: truth, repeatCount: max(1, options.repeatCount),
            readers: runs.map { ReaderSummary($0, repeatCount: options.repeatCount) }, notes: notes,
            throughput: throughput, skipped: skipped, photos: runs.flatMap(\.photos))
        return (report, runner)
    }
}
