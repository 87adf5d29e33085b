import Foundation
import SeerTestSupport
import Testing

/// Runs the built `seer` binary end to end: stdout JSON, exit codes.
@Suite("seer scan (built binary)")
struct ScanCLITests {
    static let binary: URL? = {
        // The seer built beside this test bundle first (whatever the build folder), then the default folder.
        let beside = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("seer")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        for config in ["debug", "release"] {
            let url = Fixtures.root.appendingPathComponent(".build/\(config)/seer")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }()

    struct CLIMissing: Error, CustomStringConvertible {
        var description: String { "build the seer product first (swift build)" }
    }

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
        var lines: [[String: Any]] {
            stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
    }

    static func run(_ args: [String], stdin: Data? = nil) throws -> Run {
        guard binary != nil else { throw CLIMissing() }
        let run = try SeerBinary.run(args, stdin: stdin)
        return Run(status: run.status, stdout: run.out, stderr: run.err)
    }

    static func fixture(_ name: String) -> String { Fixtures.generated.appendingPathComponent(name).path }

    @Test("JSON Lines with the documented keys; exit 0 when something is read")
    func json() throws {
        let r = try Self.run(["scan", "--format", "json", Self.fixture("payload-utf8-japanese.png")])
        #expect(r.status == 0)
        let line = try #require(r.lines.first)
        #expect(line["file"] as? String == Self.fixture("payload-utf8-japanese.png"))
        #expect(line["orientation"] as? Int == 1)
        #expect((line["width"] as? Int ?? 0) > 0 && (line["height"] as? Int ?? 0) > 0)
        let symbols = try #require(line["symbols"] as? [[String: Any]])
        let s = try #require(symbols.first)
        #expect(s["format"] as? String == "qr")
        #expect(s["text"] as? String == "こんにちは世界 QR テスト")
        #expect(s["bytes"] as? String == Data("こんにちは世界 QR テスト".utf8).base64EncodedString())
        #expect((s["corners"] as? [[Double]])?.count == 4)
        #expect(s["quality"] as? Int != nil)
    }

    @Test("binary payload: text is null, bytes are base64")
    func binaryJSON() throws {
        let r = try Self.run(["scan", "--format", "json", Self.fixture("payload-binary.png")])
        #expect(r.status == 0)
        let s = try #require((r.lines.first?["symbols"] as? [[String: Any]])?.first)
        #expect(s["text"] is NSNull)
        #expect(s["bytes"] as? String == "AAEC//6AEH8bAMMo")
    }

    @Test("exit 2 when nothing is read")
    func nothing() throws {
        let r = try Self.run(["scan", "--format", "json", "--symbologies", "qr", Self.fixture("linear-ean13.png")])
        #expect(r.status == 2)
        #expect((r.lines.first?["symbols"] as? [Any])?.isEmpty == true)
    }

    @Test("every symbology by default: a product barcode reads with no options")
    func everySymbologyByDefault() throws {
        let r = try Self.run(["scan", "--format", "json", Self.fixture("linear-ean13.png")])
        #expect(r.status == 0)
        let symbols = try #require(r.lines.first?["symbols"] as? [[String: Any]])
        #expect(symbols.count == 1)
        #expect(symbols.first?["format"] as? String == "ean13")
    }

    @Test("exit 1 when an input fails, and the batch goes on")
    func failure() throws {
        let r = try Self.run(["scan", "--format", "json", "/nonexistent/photo.jpg", Self.fixture("payload-numeric.png")])
        #expect(r.status == 1)
        let lines = r.lines
        try #require(lines.count == 2)
        let error = try #require(lines[0]["error"] as? [String: Any])
        #expect(error["code"] as? String != nil && error["message"] as? String != nil)
        #expect(lines[1]["symbols"] as? [Any] != nil)
    }

    @Test("exit 64 on usage errors")
    func usage() throws {
        #expect(try Self.run(["scan"]).status == 64)
        #expect(try Self.run(["scan", "--symbologies", "nope", Self.fixture("payload-numeric.png")]).status == 64)
        #expect(try Self.run(["scan", "--jobs", "0", Self.fixture("payload-numeric.png")]).status == 64)
    }

    @Test("a directory is scanned recursively, in order, with several jobs")
    func directory() throws {
        let r = try Self.run(["scan", "--format", "json", "--jobs", "2", Fixtures.generated.path])
        let files = r.lines.compactMap { $0["file"] as? String }
        let expected = Fixtures.manifest.map { Fixtures.generated.appendingPathComponent($0.file).path }.sorted()
        #expect(files == expected)
        #expect(r.status == 0)
    }

    @Test("standard input, symbologies and text output")
    func stdinAndSymbologies() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.fixture("linear-code128.png")))
        let r = try Self.run(["scan", "--symbologies", "code128,ean13", "-"], stdin: data)
        #expect(r.status == 0)
        #expect(r.stdout == "-: code128 SEER-128/abc\n")
    }

    @Test("--annotate writes a PNG per photo")
    func annotate() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("seer-annotate-\(getpid())")
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try Self.run(["scan", "--annotate", dir.path, Self.fixture("several-4.png")])
        #expect(r.status == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(files == ["0000-several-4.png"])
        let png = try Data(contentsOf: dir.appendingPathComponent(files[0]))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }
}
