import Foundation
import SeerTestSupport
import Testing

/// Runs the built `seer` binary, as a user would, and returns its exit code, stdout and stderr.
struct CLI {
    static let binary: String = SeerBinary.path

    static let testImages: String = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("TestImages").path
    }()

    static func run(_ arguments: [String], stdin: Data? = nil) throws -> (status: Int32, out: String, err: String) {
        let run = try SeerBinary.run(arguments, stdin: stdin)
        return (run.status, run.out, run.err)
    }

    /// Each stdout line parsed as a JSON object.
    static func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }
}

@Suite("seer CLI")
struct CLITests {
    @Test func versionAndHelp() throws {
        let version = try CLI.run(["--version"])
        #expect(version.status == 0)
        #expect(version.out.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3)
        let help = try CLI.run(["--help"])
        #expect(help.status == 0)
        #expect(help.out.contains("info"))
    }

    @Test func infoJSONReportsDisplayedSizeAndOrientation() throws {
        let file = "\(CLI.testImages)/orientation/jpeg-6.jpg"
        let result = try CLI.run(["info", "--format", "json", file])
        #expect(result.status == 0)
        let objects = try CLI.jsonLines(result.out)
        let object = try #require(objects.first)
        #expect(objects.count == 1)
        #expect(object["file"] as? String == file)
        #expect(object["format"] as? String == "jpeg")
        #expect(object["width"] as? Int == 48)
        #expect(object["height"] as? Int == 32)
        #expect(object["orientation"] as? Int == 6)
    }

    @Test func infoReadsHeadersOnlyAndChecksWhenAsked() throws {
        // The header of a truncated JPEG is whole: without --check, info reports it.
        let bad = "\(CLI.testImages)/malformed/truncated.jpg"
        let plain = try CLI.run(["info", "--format", "json", bad])
        #expect(plain.status == 0)
        #expect(try CLI.jsonLines(plain.out).first?["width"] as? Int == 64)
    }

    @Test func infoGoesOnAfterAFailureAndExitsOne() throws {
        let good = "\(CLI.testImages)/decode/rgb8.png"
        let bad = "\(CLI.testImages)/malformed/truncated.jpg"
        let result = try CLI.run(["info", "--check", "--format", "json", bad, good])
        #expect(result.status == 1)
        let objects = try CLI.jsonLines(result.out)
        #expect(objects.count == 2)
        let error = try #require(objects[0]["error"] as? [String: Any])
        #expect(objects[0]["file"] as? String == bad)
        #expect(error["code"] as? String == "truncated")
        #expect((error["message"] as? String)?.isEmpty == false)
        #expect(objects[1]["format"] as? String == "png")
    }

    @Test func infoTextPutsErrorsOnStderr() throws {
        let result = try CLI.run(["info", "\(CLI.testImages)/malformed/image.gif", "\(CLI.testImages)/decode/gray8.png"])
        #expect(result.status == 1)
        #expect(result.out.contains("gray8.png: png 64x48 orientation 1"))
        #expect(!result.out.contains("image.gif"))
        #expect(result.err.contains("unsupportedFormat"))
    }

    @Test func usageErrorsExit64() throws {
        #expect(try CLI.run(["info"]).status == 64)
        #expect(try CLI.run(["info", "--format", "xml", "x.png"]).status == 64)
        #expect(try CLI.run(["no-such-command"]).status == 64)
    }
}

@Suite("seer CLI inputs")
struct CLIInputTests {
    @Test func directoriesExpandToThePhotosBelowThem() throws {
        let result = try CLI.run(["info", "--format", "json", "\(CLI.testImages)/orientation"])
        #expect(result.status == 0)
        let objects = try CLI.jsonLines(result.out)
        #expect(objects.count == 16)
        #expect(objects.allSatisfy { $0["width"] as? Int == 48 && $0["height"] as? Int == 32 })
    }

    @Test func inADirectoryNonImagesAreSkippedButBrokenImagesReported() throws {
        // TestImages/ holds a README and a script beside the photos; malformed/ holds broken photos.
        let result = try CLI.run(["info", "--format", "json", CLI.testImages])
        #expect(result.status == 1)
        let files = try CLI.jsonLines(result.out).compactMap { $0["file"] as? String }
        #expect(!files.contains { $0.hasSuffix(".md") || $0.hasSuffix(".py") })
        #expect(files.contains { $0.hasSuffix("malformed/text.jpg") })
        #expect(files.contains { $0.hasSuffix("malformed/truncated.png") })
    }

    @Test func decodeWritesTheLuminanceAsPGM() throws {
        let result = try CLI.run(["decode", "\(CLI.testImages)/decode/gray8.png"])
        #expect(result.status == 0)
        #expect(result.out.hasPrefix("P5\n64 48\n255\n"))
        let bad = try CLI.run(["decode", "--scale", "3", "\(CLI.testImages)/decode/gray8.png"])
        #expect(bad.status == 64)
    }
}
