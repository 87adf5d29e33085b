import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The built `seer` over the whole malformed-input corpus (`scripts/malformed-corpus.py`): one line per
/// file (a result or a typed error), exit code 1 (some input failed), never a signal; within a time
/// and memory bound.
@Suite("seer CLI over the malformed corpus")
struct CorpusCLITests {
    /// Where the corpus is written: one folder per test process, removed when the process exits.
    static var folder: String {
        FileManager.default.temporaryDirectory.appendingPathComponent("seer-cli-corpus-\(getpid())").path
    }

    static let corpus: (dir: String, files: Int)? = {
        let root = URL(fileURLWithPath: CLI.testImages).deletingLastPathComponent()
        let out = folder
        atexit { try? FileManager.default.removeItem(atPath: CorpusCLITests.folder) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("scripts/malformed-corpus.py").path, out]
        process.standardOutput = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let manifest = try? String(contentsOfFile: "\(out)/manifest.tsv", encoding: .utf8)
        else { return nil }
        // The manifest is not a photo; the command is given the folder.
        try? FileManager.default.removeItem(atPath: "\(out)/manifest.tsv")
        return (out, manifest.split(separator: "\n").count)
    }()

    /// Peak resident memory of the largest child waited for so far, in MiB.
    static func childPeakMiB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return usage.ru_maxrss / 1024
    }

    @Test(arguments: [["info", "--check", "--format", "json"], ["info", "--format", "json"], ["scan", "--read", "codes,plates", "--format", "json", "--jobs", "2"]])
    func everyFileGetsAResultOrATypedError(arguments: [String]) throws {
        let corpus = try #require(Self.corpus, "the corpus generator did not run")
        let start = ContinuousClock.now
        let result = try CLI.run(arguments + [corpus.dir])
        let elapsed = ContinuousClock.now - start
        #expect(result.status == 1, "exit \(result.status): \(result.err.suffix(400))")
        let lines = try CLI.jsonLines(result.out)
        #expect(lines.count == corpus.files)
        let codes: Set<String> = ["empty", "notAnImage", "unsupportedFormat", "truncated", "corrupt", "tooLarge", "outOfMemory"]
        for line in lines {
            if let error = line["error"] as? [String: Any] {
                #expect(codes.contains(error["code"] as? String ?? ""), "\(line)")
            } else {
                #expect((line["width"] as? Int ?? 0) > 0, "\(line)")
            }
        }
        #expect(elapsed < .seconds(300), "\(arguments.first ?? "") took \(elapsed)")
        #expect(Self.childPeakMiB() < 2048, "peak \(Self.childPeakMiB()) MiB")
    }
}
