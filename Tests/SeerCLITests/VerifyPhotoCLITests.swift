import Foundation
import Testing

/// `seer verify PATH…` and `seer charger PATH` read the codes in the photos, run as built.
@Suite("seer verify and charger from photos")
struct VerifyPhotoCLITests {
    static let products = "\(CLI.testImages)/products"

    @Test func verifyReadsTheDemoPhotos() throws {
        let db = FileManager.default.temporaryDirectory.appendingPathComponent("seer-verify-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: db + suffix) } }
        let registry = URL(fileURLWithPath: CLI.testImages).deletingLastPathComponent().appendingPathComponent("Examples/registry")
        let files = try FileManager.default.contentsOfDirectory(atPath: registry.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(try CLI.run(["registry", "import", "--db", db] + files.map { registry.appendingPathComponent($0).path }).status == 0)

        struct Code: Decodable { var file: String, kind: String, payload: String, symbology: String, expected: String }
        let codes = try JSONDecoder().decode([Code].self, from: Data(contentsOf: URL(fileURLWithPath: "\(Self.products)/codes.json")))
        let products = codes.filter { $0.kind == "product" }
        // File order as a shell glob gives it; the only order that matters (cloned-1 before cloned-2) holds.
        let paths = products.map { "\(Self.products)/\($0.file)" }.sorted()
        let result = try CLI.run(["verify", "--db", db, "--mode", "batch", "--format", "json"] + paths)
        #expect(result.status == 0)
        let lines = try CLI.jsonLines(result.out)
        try #require(lines.count == products.count)
        for code in products {
            let line = lines.first { $0["source"] as? String == "\(Self.products)/\(code.file)" }
            #expect(line?["verdict"] as? String == code.expected, "\(code.file)")
            #expect(line?["payload"] as? String == code.payload, "\(code.file)")
            #expect(line?["symbology"] as? String == code.symbology, "\(code.file)")
        }
        let history = try CLI.run(["history", "--db", db, "--format", "json", "--limit", "100"])
        let scans = try #require((try CLI.jsonLines(history.out).first)?["scans"] as? [Any])
        #expect(scans.count == products.count)

        // A directory stands for its photos (charger codes are no product codes); a broken photo fails alone.
        let directory = try CLI.run(["verify", "--db", db, "--no-save", "--format", "json", Self.products])
        #expect(directory.status == 0)
        let all = try CLI.jsonLines(directory.out)
        #expect(all.count == codes.count)
        #expect(all.filter { $0["verdict"] as? String == "unknown" && ($0["source"] as? String)?.contains("/charger-") == true }.count == 6)
        let charger = try CLI.run(["charger", "--db", db, "\(Self.products)/charger-faulted.png"])
        #expect(charger.status == 0)
        #expect(charger.out == "100009: Charger out of order (Faulted) — Demo Street 9, bay 9\n")
        let broken = try CLI.run(["verify", "--db", db, "--no-save", "\(CLI.testImages)/malformed/truncated.png", "\(Self.products)/recalled.png"])
        #expect(broken.status == 1)
        #expect(broken.out.contains("recalled.png: SUSPICIOUS (recalled"))
        #expect(broken.err.contains("truncated.png"))
    }
}
