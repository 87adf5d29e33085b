import Foundation
import SeerTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Inputs that are not ordinary photo files: FIFOs, directories, huge sparse files, names that are
/// not UTF-8. Each command must answer (never block), with a typed error or a result, and read
/// only what it needs.
@Suite("seer CLI with inputs that are not plain files")
struct InputFilesCLITests {
    /// One run of `seer`, with its arguments given as bytes (any file name), a time limit, and the
    /// child's own peak memory: a small Python driver starts it and waits for it alone.
    struct Measured {
        var status: Int?
        var timedOut: Bool
        var out: String
        var err: String
        var peakMiB: Int
    }

    static func measure(_ arguments: [[UInt8]], seconds: Int = 20) throws -> Measured {
        let driver = """
            import json, resource, subprocess, sys
            args = [bytes.fromhex(a) for a in sys.argv[2:]]
            try:
                r = subprocess.run(args, capture_output=True, timeout=int(sys.argv[1]))
                status, out, err = r.returncode, r.stdout, r.stderr
            except subprocess.TimeoutExpired as e:
                status, out, err = None, e.stdout or b"", e.stderr or b""
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            print(json.dumps({"status": status, "out": out.decode("utf-8", "replace"),
                              "err": err.decode("utf-8", "replace"), "peak": peak}))
            """
        let hex = ([Array(SeerBinary.path.utf8)] + arguments).map { $0.map { String(format: "%02x", $0) }.joined() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", driver, String(seconds)] + hex
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let json = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any], "driver: \(String(decoding: data, as: UTF8.self))")
        return Measured(
            status: json["status"] as? Int, timedOut: json["status"] is NSNull, out: json["out"] as? String ?? "",
            err: json["err"] as? String ?? "", peakMiB: (json["peak"] as? Int ?? 0) / 1024)
    }

    static func measure(_ arguments: [String], seconds: Int = 20) throws -> Measured {
        try measure(arguments.map { Array($0.utf8) }, seconds: seconds)
    }

    static func errorCode(_ line: [String: Any]) -> String? {
        (line["error"] as? [String: Any])?["code"] as? String
    }

    /// A FIFO named like a photo: every command refuses it at once (it used to wait forever for a
    /// writer), and a folder holding one is scanned to the end.
    @Test func aFIFOIsRefusedWithoutBlocking() throws {
        let dir = try TemporaryDirectory("seer-fifo")
        let fifo = dir.file("x.jpg")
        try #require(mkfifo(fifo, 0o644) == 0)
        try FileManager.default.copyItem(atPath: "\(CLI.testImages)/decode/rgb8.png", toPath: dir.file("y.png"))
        for command in [["info", "--format", "json"], ["info", "--check", "--format", "json"], ["scan", "--read", "codes", "--format", "json"]] {
            let run = try Self.measure(command + [fifo])
            #expect(!run.timedOut, "\(command) blocked on a FIFO")
            let lines = try CLI.jsonLines(run.out)
            #expect(lines.count == 1 && Self.errorCode(lines[0]) == "unreadable", "\(command): \(run.out)")
            #expect(run.out.contains("FIFO"), "\(run.out)")
            #expect(run.status == 1)
        }
        let decode = try Self.measure(["decode", fifo, "-o", dir.file("out.pgm")])
        #expect(!decode.timedOut && decode.status == 1 && decode.err.contains("unreadable"), "\(decode.err)")
        let folder = try Self.measure(["scan", "--read", "codes", "--format", "json", dir.path])
        #expect(!folder.timedOut, "a folder holding a FIFO blocked")
        #expect(folder.out.contains("y.png"))
    }

    /// A 511-MB file of zeros is not an image, and its first bytes say so: it is refused without
    /// being read (it used to be read whole, 560 MB, first).
    @Test func aHugeFileThatIsNotAnImageIsNotReadWhole() throws {
        let dir = try TemporaryDirectory("seer-sparse")
        let path = dir.file("zeros.jpg")
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(fd >= 0)
        try #require(ftruncate(fd, 511 << 20) == 0)
        close(fd)
        for command in [["info", "--format", "json"], ["info", "--check", "--format", "json"], ["scan", "--read", "codes,plates", "--format", "json"]] {
            let run = try Self.measure(command + [path])
            let lines = try CLI.jsonLines(run.out)
            #expect(lines.count == 1 && Self.errorCode(lines[0]) == "notAnImage", "\(command): \(run.out) \(run.err)")
            #expect(run.peakMiB < 200, "\(command): \(run.peakMiB) MiB for a file that is not an image")
        }
    }

    /// A directory named like a photo (with nothing in it) is reported, not passed over in silence.
    @Test func anEmptyDirectoryIsATypedError() throws {
        let dir = try TemporaryDirectory("seer-dir")
        let folder = dir.file("x.jpg")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        for command in [["info", "--format", "json"], ["scan", "--read", "codes", "--format", "json"]] {
            let run = try Self.measure(command + [folder])
            let lines = try CLI.jsonLines(run.out)
            #expect(lines.count == 1 && Self.errorCode(lines[0]) == "unreadable", "\(command): \(run.out)")
            #expect(run.out.contains("is a directory"))
            #expect(run.status == 1)
        }
        let text = try Self.measure(["info", folder])
        #expect(text.err.contains("x.jpg: unreadable: is a directory"), "\(text.err)")
        let decode = try Self.measure(["decode", folder, "-o", dir.file("out.pgm")])
        #expect(decode.status == 1 && decode.err.contains("is a directory"), "\(decode.err)")
    }

    /// A file whose name is not UTF-8 is read, given by name or found in a folder; its name is
    /// reported with U+FFFD for each byte that is not UTF-8.
    @Test func aNameThatIsNotUTF8IsRead() throws {
        let dir = try TemporaryDirectory("seer-names")
        let name = Array(dir.path.utf8) + Array("/photo-".utf8) + [0xFF, 0xFE] + Array(".png".utf8)
        let source = try Data(contentsOf: URL(fileURLWithPath: "\(CLI.testImages)/decode/rgb8.png"))
        let fd = (name + [0]).withUnsafeBufferPointer {
            $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
        }
        try #require(fd >= 0)
        _ = source.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let shown = "\(dir.path)/photo-\u{FFFD}\u{FFFD}.png"
        for arguments in [[Array(dir.path.utf8)], [name]] {
            for command in [["info", "--format", "json"], ["info", "--check", "--format", "json"], ["scan", "--read", "codes", "--format", "json"]] {
                let run = try Self.measure(command.map { Array($0.utf8) } + arguments)
                let lines = try CLI.jsonLines(run.out)
                #expect(lines.count == 1, "\(command): \(run.out) \(run.err)")
                #expect(lines.first.map(Self.errorCode) == .some(nil), "\(command): \(run.out)")
                #expect(lines.first?["file"] as? String == shown, "\(command): \(run.out)")
            }
        }
        let out = dir.file("out.pgm")
        let decode = try Self.measure([Array("decode".utf8), name, Array("-o".utf8), Array(out.utf8)])
        #expect(decode.status == 0, "\(decode.err)")
        #expect(FileManager.default.fileExists(atPath: out))
    }

    /// An animated WebP of one 1×1 frame on a canvas of almost 100 megapixels: decoding it holds
    /// the output image and not the canvas in RGBA twice over (1.2 GB before). The bound is the
    /// issue's: twice the decoded image (100 MB of grey) plus 100 MB.
    @Test func aTinyFrameOnAHugeCanvasCostsItsOutput() throws {
        let corpus = try #require(CorpusCLITests.corpus, "the corpus generator did not run")
        let file = "\(corpus.dir)/bound-webp-anim-canvas-100mp.webp"
        let dir = try TemporaryDirectory("seer-canvas")
        let run = try Self.measure(["decode", file, "-o", dir.file("out.pgm")])
        #expect(run.status == 0, "\(run.err)")
        let decoded = (9999 * 9999) >> 20
        #expect(run.peakMiB < 2 * decoded + 100, "peak \(run.peakMiB) MiB")
        let info = try Self.measure(["info", "--check", "--format", "json", file])
        #expect(info.status == 0 && info.peakMiB < 2 * decoded + 100, "peak \(info.peakMiB) MiB: \(info.out)")
    }

    /// `seer decode` writes the same bytes twice for the corpus's bound files and the HEIC and WebP
    /// fixtures, with glibc filling fresh memory differently in each run (`MALLOC_PERTURB_`): no
    /// output byte may come from memory the decoder did not write. (SeerImageTests checks every
    /// corpus file and fixture the same way in process.)
    @Test func decodeWritesTheSameBytesTwice() throws {
        let corpus = try #require(CorpusCLITests.corpus, "the corpus generator did not run")
        var files = try FileManager.default.contentsOfDirectory(atPath: corpus.dir).filter {
            $0.hasPrefix("bound-heic") || $0.hasPrefix("bound-webp") || $0.hasPrefix("dims-")
        }.map { "\(corpus.dir)/\($0)" }
        for group in ["heic", "webp"] {
            files += try FileManager.default.contentsOfDirectory(atPath: "\(CLI.testImages)/\(group)").map { "\(CLI.testImages)/\(group)/\($0)" }
        }
        #expect(files.count >= 30)
        let dir = try TemporaryDirectory("seer-twice")
        var differing: [String] = []
        for (index, file) in files.sorted().enumerated() {
            var outputs: [Data] = []
            for (run, perturb) in ["90", "195"].enumerated() {
                let out = dir.file("\(index)-\(run).ppm")
                let result = try SeerBinary.run(["decode", "--rgb", file, "-o", out], environment: ["MALLOC_PERTURB_": perturb])
                outputs.append((try? Data(contentsOf: URL(fileURLWithPath: out))) ?? Data(("status \(result.status) " + result.err).utf8))
            }
            if outputs[0] != outputs[1] { differing.append((file as NSString).lastPathComponent) }
        }
        #expect(differing.isEmpty, "decoded differently: \(differing)")
    }
}
