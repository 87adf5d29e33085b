import Foundation
import SeerImage
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The malformed-input corpus (`scripts/malformed-corpus.py`), generated afresh into a temporary
/// folder: several hundred truncated, bit-flipped, lying, looping, polyglot and bomb files.
enum MalformedCorpus {
    struct Entry: Sendable {
        var path: String
        var name: String
        /// `any` (a typed error or a valid image), `decodes`, `corrupt` or `tooLarge`.
        var expect: String
    }

    static let entries: [Entry] = {
        let root = URL(fileURLWithPath: Fixtures.root).deletingLastPathComponent()
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("seer-corpus-\(getpid())").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("scripts/malformed-corpus.py").path, out]
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
            process.waitUntilExit()
        } catch { return [] }
        guard process.terminationStatus == 0,
            let manifest = try? String(contentsOfFile: "\(out)/manifest.tsv", encoding: .utf8)
        else { return [] }
        return manifest.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: "\t")
            guard parts.count == 2 else { return nil }
            return Entry(path: "\(out)/\(parts[0])", name: String(parts[0]), expect: String(parts[1]))
        }
    }()

    /// Peak resident memory of this process so far, in MiB.
    static func peakMiB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss / 1024
    }
}

@Suite("Malformed corpus")
struct CorpusTests {
    @Test func theCorpusIsLarge() {
        #expect(MalformedCorpus.entries.count >= 500)
        #expect(MalformedCorpus.entries.filter { $0.expect == "corrupt" }.count >= 15)
        #expect(MalformedCorpus.entries.contains { $0.name.hasPrefix("bomb-progressive-1000") })
    }

    /// Every file gives a typed error or a valid image, from memory and from the file, with the
    /// header read alone too; the named damage conditions are `corrupt`, the bombs `tooLarge`; each
    /// within a time bound, and the whole run within a memory bound.
    @Test func everyFileGivesATypedErrorOrAValidImage() throws {
        let entries = MalformedCorpus.entries
        try #require(!entries.isEmpty, "the corpus generator did not run (python3 scripts/malformed-corpus.py)")
        var outcomes: [String: Int] = [:]
        for entry in entries {
            let start = ContinuousClock.now
            var code: ImageError.Code?
            do {
                let image = try ImageDecoder.decode(contentsOf: entry.path)
                #expect(image.gray.count == image.gray.width * image.gray.height && image.gray.count > 0, "\(entry.name)")
                #expect(image.gray.width == image.info.width && image.gray.height == image.info.height, "\(entry.name)")
            } catch let error as ImageError {
                code = error.code
                #expect(error.code != .unreadable, "\(entry.name): \(error)")
                #expect(error.source == entry.path)
            }
            let bytes = try ImageDecoder.readFile(entry.path)
            do {
                _ = try ImageDecoder.decode(bytes)
                #expect(code == nil, "\(entry.name): decodes from memory but not from the file (\(String(describing: code)))")
            } catch let error as ImageError {
                #expect(error.code == code, "\(entry.name): \(error.code) from memory, \(String(describing: code)) from the file")
            }
            _ = try? ImageDecoder.info(contentsOf: entry.path)
            switch entry.expect {
            case "corrupt": #expect(code == .corrupt, "\(entry.name) must be corrupt, was \(String(describing: code))")
            case "tooLarge": #expect(code == .tooLarge, "\(entry.name) must be tooLarge, was \(String(describing: code))")
            case "decodes": #expect(code == nil, "\(entry.name) must decode, was \(String(describing: code))")
            default: break
            }
            let elapsed = ContinuousClock.now - start
            #expect(elapsed < .seconds(20), "\(entry.name) took \(elapsed)")
            outcomes[code?.rawValue ?? "decoded", default: 0] += 1
        }
        #expect(MalformedCorpus.peakMiB() < 2048, "peak \(MalformedCorpus.peakMiB()) MiB")
        print("corpus outcomes over \(entries.count) files: \(outcomes.sorted { $0.key < $1.key })")
    }

    /// The progressive bomb (100 grey megapixels) is refused from its header for the coefficients it
    /// would hold, and without that limit by the work budget (the header alone still reads); the work
    /// budget is what refuses it then: a small file with 900 valid scans is refused under the default
    /// budget and decodes under a budget of 1000 passes.
    @Test func theScanBombIsRefusedByTheWorkBudget() throws {
        let bomb = try #require(MalformedCorpus.entries.first { $0.name == "bomb-progressive-1000-scans.jpg" })
        let held = #expect(throws: ImageError.self) { try ImageDecoder.decode(contentsOf: bomb.path) }
        #expect(held?.code == .tooLarge)
        #expect(held?.message.contains("coefficients") == true, "\(String(describing: held))")
        let error = #expect(throws: ImageError.self) {
            try ImageDecoder.decode(contentsOf: bomb.path, options: DecodeOptions(budget: DecodeBudget(progressiveMemoryPerImageByte: nil)))
        }
        #expect(error?.code == .tooLarge)
        #expect(error?.message.contains("times the blocks") == true)
        #expect(try ImageDecoder.info(contentsOf: bomb.path).width == 10000)

        let small = try #require(MalformedCorpus.entries.first { $0.name == "prog-ok-900-small.jpg" })
        let refused = #expect(throws: ImageError.self) { try ImageDecoder.decode(contentsOf: small.path) }
        #expect(refused?.code == .tooLarge)
        let decoded = try ImageDecoder.decode(contentsOf: small.path, options: DecodeOptions(workLimit: 1000))
        #expect(decoded.gray.width == 64 && decoded.gray.height == 64)
    }
}
