import Foundation
import Testing

/// `seer scan --read codes|plates|codes,plates`, run as built.
@Suite("seer scan --read")
struct ScanReadCLITests {
    static let plates = "\(CLI.testImages)/plates"
    static let products = "\(CLI.testImages)/products"

    /// What the plate scoring script takes from a JSON line: the first string, depth-first in
    /// document order, under a key named plate, plate_text, plateText, text or number. With sorted
    /// keys, document order is the order in the text.
    static func firstScoredString(_ line: String) -> String? {
        let keys = ["plate", "plate_text", "plateText", "text", "number"].map { "\"\($0)\":\"" }
        let hits = keys.compactMap { line.range(of: $0) }
        guard let first = hits.min(by: { $0.lowerBound < $1.lowerBound }) else { return nil }
        return String(line[first.upperBound...].prefix { $0 != "\"" })
    }

    @Test func platesAsTheScoringScriptRunsIt() throws {
        let result = try CLI.run(["scan", "--read", "plates", "--region", "us", "--format", "json", "\(Self.plates)/us-ca.png"])
        #expect(result.status == 0)
        let object = try #require(try CLI.jsonLines(result.out).first)
        let plates = try #require(object["plates"] as? [[String: Any]])
        #expect(plates.first?["text"] as? String == "7ABC123")
        #expect(plates.first?["region"] as? String == "us")
        #expect((plates.first?["corners"] as? [[Double]])?.count == 4)
        #expect((object["symbols"] as? [Any])?.isEmpty == true)
        #expect(object["width"] as? Int != nil && object["orientation"] as? Int == 1)
        #expect(Self.firstScoredString(result.out) == "7ABC123")
    }

    @Test func codesAndPlatesFromOneRun() throws {
        let qr = "\(Self.products)/recalled.png", car = "\(Self.plates)/sk.png"
        let result = try CLI.run(["scan", "--read", "codes,plates", "--region", "eu", "--format", "json", "--timing", qr, car])
        #expect(result.status == 0)
        let lines = try CLI.jsonLines(result.out)
        try #require(lines.count == 2)
        #expect((lines[0]["symbols"] as? [[String: Any]])?.first?["format"] as? String == "qr")
        #expect((lines[0]["plates"] as? [Any])?.isEmpty == true)
        #expect((lines[1]["plates"] as? [[String: Any]])?.first?["text"] as? String == "BA123CD")
        #expect((lines[1]["symbols"] as? [Any])?.isEmpty == true)
        #expect(lines.allSatisfy { ($0["milliseconds"] as? Double ?? 0) > 0 })
    }

    @Test func codesAloneKeepTheirOutput() throws {
        // No plates key unless plates are asked for; a car photo holds no code: exit 2.
        let car = try CLI.run(["scan", "--format", "json", "\(Self.plates)/uk.png"])
        #expect(car.status == 2)
        let object = try #require(try CLI.jsonLines(car.out).first)
        #expect(object["plates"] == nil)
        #expect((object["symbols"] as? [Any])?.isEmpty == true)
        let same = try CLI.run(["scan", "--read", "codes", "--format", "json", "\(Self.products)/recalled.png"])
        let plain = try CLI.run(["scan", "--format", "json", "\(Self.products)/recalled.png"])
        #expect(same.status == 0 && same.out == plain.out)
        #expect(!plain.out.contains("\"plates\""))  // the key, not a path that may hold the word
    }

    @Test func exitCodes() throws {
        // Nothing read in any photo: 2. An input failed: 1. Usage: 64.
        #expect(try CLI.run(["scan", "--read", "plates", "\(CLI.testImages)/decode/gray8.png"]).status == 2)
        let failed = try CLI.run(["scan", "--read", "plates", "--format", "json", "/nonexistent/car.jpg", "\(Self.plates)/de.png"])
        #expect(failed.status == 1)
        let lines = try CLI.jsonLines(failed.out)
        try #require(lines.count == 2)
        #expect(lines[0]["error"] != nil)
        #expect((lines[1]["plates"] as? [[String: Any]])?.isEmpty == false)
        #expect(try CLI.run(["scan", "--read", "faces", "\(Self.plates)/de.png"]).status == 64)
        #expect(try CLI.run(["scan", "--read", "plates", "--region", "mars", "\(Self.plates)/de.png"]).status == 64)
    }

    @Test func textOutputNamesPlates() throws {
        let result = try CLI.run(["scan", "--read", "codes,plates", "--region", "br", "\(Self.plates)/br-mercosul.png", "\(CLI.testImages)/decode/gray8.png"])
        #expect(result.status == 0)
        let lines = result.out.split(separator: "\n").map(String.init)
        try #require(lines.count == 2)
        #expect(lines[0].hasPrefix("\(Self.plates)/br-mercosul.png: plate RIO2A18 (br-mercosul, confidence "))
        #expect(lines[1] == "\(CLI.testImages)/decode/gray8.png: no code or plate")
        let platesOnly = try CLI.run(["scan", "--read", "plates", "\(CLI.testImages)/decode/gray8.png"])
        #expect(platesOnly.out.hasSuffix("gray8.png: no plate\n"))
    }

    @Test func annotationOutlinesPlates() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("seer-annotate-plates-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLI.run(["scan", "--read", "plates", "--region", "eu", "--annotate", dir.path, "--format", "json", "\(Self.plates)/sk.png"])
        #expect(result.status == 0)
        let box = try #require(((try CLI.jsonLines(result.out).first)?["plates"] as? [[String: Any]])?.first?["box"] as? [Double])
        let png = dir.appendingPathComponent("0000-sk.png").path
        // Decode the annotated PNG back to RGB and look for the plate outline's colour on the box edge.
        let ppm = dir.appendingPathComponent("sk.ppm").path
        #expect(try CLI.run(["decode", "--rgb", "-o", ppm, png]).status == 0)
        let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: ppm)))
        let header = String(decoding: data.prefix(20), as: UTF8.self).split(whereSeparator: \.isWhitespace)
        try #require(header.count >= 4 && header[0] == "P6")
        let width = try #require(Int(header[1])), height = try #require(Int(header[2]))
        let offset = data.count - width * height * 3
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(data[(offset + (y * width + x) * 3)...].prefix(3)) }
        let y = Int(box[1] + box[3] / 2), x0 = Int(box[0])
        let blue = (max(0, x0 - 6)...min(width - 1, x0 + 6)).contains { pixel($0, y) == [0, 120, 255] }
        #expect(blue, "no outline near x=\(x0), y=\(y)")
    }
}
