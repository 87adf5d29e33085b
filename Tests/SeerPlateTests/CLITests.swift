import Foundation
import SeerImage
import SeerTestSupport
import Testing

/// Runs the built `seer` next to the test bundle: `seer plate read` and `seer plate normalize`.
@Suite struct PlateCLITests {
    static let seer = URL(fileURLWithPath: SeerBinary.path)

    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, out: String, err: String) {
        let run = try SeerBinary.run(arguments, environment: environment)
        return (run.status, run.out, run.err)
    }

    @Test func readPrintsOneJSONLinePerPhoto() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.seer.path), "seer not built at \(Self.seer.path)")
        let sk = Scene.folder.appendingPathComponent("sk.png").path
        let result = try run(["plate", "read", "--region", "eu", "--format", "json", sk, "/nonexistent/x.png"])
        #expect(result.status == 1)
        let lines = result.out.split(separator: "\n")
        try #require(lines.count == 2)
        let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
        let plates = first?["plates"] as? [[String: Any]]
        #expect(plates?.first?["text"] as? String == "BA123CD")
        #expect(first?["width"] as? Int == 640)
        let second = try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any]
        #expect((second?["error"] as? [String: Any])?["code"] as? String == "unreadable")
    }

    @Test func noPlateExitsTwo() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.seer.path))
        let blank = FileManager.default.temporaryDirectory.appendingPathComponent("seer-blank-\(UUID()).png").path
        defer { try? FileManager.default.removeItem(atPath: blank) }
        try PNGWriter.write(GrayImage(width: 200, height: 120, fill: 128), to: blank)
        let result = try run(["plate", "read", blank])
        #expect(result.status == 2)
        #expect(result.out.contains("no plate"))
    }

    @Test func missingLanguageDataFailsCleanly() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.seer.path))
        let sk = Scene.folder.appendingPathComponent("sk.png").path
        let result = try run(["plate", "read", sk], environment: ["TESSDATA_PREFIX": "/bogus/tessdata"])
        #expect(result.status == 1)
        #expect(result.err.contains("missingLanguageData"))
        #expect(result.err.contains("/bogus/tessdata/eng.traineddata"))
    }

    @Test func normalizeChecksTypedPlates() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.seer.path))
        let ok = try run(["plate", "normalize", "ay0 9034", "--region", "br", "--format", "json"])
        #expect(ok.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(ok.out.utf8)) as? [String: Any]
        #expect(json?["canonical"] as? String == "AYO9034")
        #expect(json?["grammar"] as? String == "br")
        let none = try run(["plate", "normalize", "12", "--region", "br"])
        #expect(none.status == 2)
        let usage = try run(["plate", "normalize", "--region", "xx", "ABC1234"])
        #expect(usage.status == 64)
    }

}
