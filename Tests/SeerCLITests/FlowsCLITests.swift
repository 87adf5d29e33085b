import Foundation
import Seer
import SeerTestSupport
import Testing

/// The apps' flows, end to end through the built `seer` with a real SQLite file.
@Suite("seer flows (built binary, real database)")
struct FlowsCLITests {
    static let images = Repository.path("TestImages")
    static let registry = ["brands", "chargers", "products", "users"].map { Repository.path("Examples/registry/\($0).json") }

    /// A temporary folder with the demo registry imported into `seer.sqlite`.
    final class Demo: Sendable {
        let folder: TemporaryDirectory
        var db: String { folder.file("seer.sqlite") }

        init() throws {
            folder = try TemporaryDirectory("seer-flows")
            let run = try SeerBinary.run(["registry", "import", "--db", folder.file("seer.sqlite")] + FlowsCLITests.registry)
            #expect(run.status == 0, "\(run.err)")
        }

        func seer(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]) throws -> SeerBinary.Run {
            try SeerBinary.run(arguments + ["--db", db], stdin: stdin, environment: environment)
        }
    }

    static func objects(_ run: SeerBinary.Run) throws -> [[String: Any]] {
        try run.lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "\($0)") }
    }

    @Test func verifyReportHistoryAndStats() throws {
        let demo = try Demo()
        let verify = try demo.seer(["verify", "--format", "json", "\(Self.images)/products/authentic-link.png", "\(Self.images)/decode/gray8.png"])
        #expect(verify.status == 0, "\(verify.err)")
        let lines = try Self.objects(verify)
        // The photo without a code is an object with a reason, not silence.
        let noCode = try #require(lines.first { $0["reason"] != nil })
        #expect(noCode["reason"] as? String == "noCode" && (noCode["file"] as? String)?.hasSuffix("gray8.png") == true)
        let verified = try #require(lines.first { $0["verdict"] != nil })
        #expect(verified["verdict"] as? String == "authentic")
        let id = try #require(verified["scanID"] as? Int)

        let report = try demo.seer(["report", String(id), "--reason", "misprinted box", "--format", "json"])
        #expect(report.status == 0, "\(report.err)")
        #expect(try Self.objects(report).first?["scan"] as? Int == id)

        let details = try demo.seer(["history", "--id", String(id), "--format", "json"])
        #expect(details.status == 0)
        let scan = try #require(try Self.objects(details).first)
        #expect(scan["id"] as? Int == id && scan["serial"] as? String == "S1001" && scan["payload"] != nil)
        let reports = try #require(scan["reports"] as? [[String: Any]])
        #expect(reports.count == 1 && reports[0]["reason"] as? String == "misprinted box")
        let text = try demo.seer(["history", "--id", String(id)])
        #expect(text.out.contains("misprinted box") && text.out.contains("S1001"))

        let stats = try demo.seer(["stats", "--format", "json"])
        let totals = try #require(try Self.objects(stats).first)
        #expect(totals["reported"] as? Int == 1 && totals["total"] as? Int == 1)
        #expect(try demo.seer(["stats"]).out.contains("reported 1"))

        // Unknown ids are errors, not crashes.
        let missing = try demo.seer(["history", "--id", "999", "--format", "json"])
        #expect(missing.status == 1)
        #expect((try Self.objects(missing).first?["error"] as? [String: Any])?["code"] as? String == "notFound")
        #expect(try demo.seer(["report", "999"]).status == 1)
        // Category filters ignore case.
        #expect(try demo.seer(["history", "--category", "COSMETICS", "--format", "json"]).out.contains("S1001"))
    }

    @Test func payloadFileLinesAndRefusedPayloads() throws {
        let demo = try Demo()
        let file = try demo.folder.write("payloads.txt", "https://id.example.com/01/09506000134352/21/S1002\n\nplain text\n\u{7}bell\n   \n")
        let run = try demo.seer(["verify", "--format", "json", "--payload-file", file, "--payload", "", "--no-save"])
        #expect(run.status == 1)
        let lines = try Self.objects(run)
        let verified = lines.filter { $0["verdict"] != nil }
        #expect(verified.compactMap { $0["line"] as? Int } == [1, 3])
        let failures = lines.compactMap { $0["error"] as? [String: Any] }
        #expect(Set(failures.compactMap { $0["code"] as? String }) == ["controlCharacter", "emptyPayload"])
        #expect(lines.contains { ($0["file"] as? String) == "\(file):4" })
        // Refused payloads were not saved (and --no-save saved nothing else).
        #expect(try Self.objects(try demo.seer(["stats", "--format", "json"])).first?["total"] as? Int == 0)
        let saved = try demo.seer(["verify", "--payload", "\u{0}", "--format", "json"])
        #expect(saved.status == 1)
        #expect(try Self.objects(try demo.seer(["stats", "--format", "json"])).first?["total"] as? Int == 0)
    }

    @Test func onboardingAndMessagesNeverShowTheEmail() throws {
        let demo = try Demo()
        let add = try demo.seer(["user", "add", "--name", "Gil Example", "--email", "gil@example.com", "--plate", "GH17 ABC", "--country", "gb", "--format", "json"])
        #expect(add.status == 0, "\(add.err)")
        let receipt = try #require(try Self.objects(add).first)
        let recipient = try #require(receipt["recipient"] as? String)
        #expect(receipt["plate"] as? String == "GH17ABC" && receipt["country"] as? String == "GB")
        let resolve = try demo.seer(["plate", "resolve", "gh17abc", "--country", "GB", "--format", "json"])
        #expect(resolve.status == 0 && resolve.out.contains(recipient))
        let message = try demo.seer(["plate", "message", "GH17 ABC", "--preset", "lights", "--country", "GB"])
        #expect(message.status == 0)
        let inbox = try demo.seer(["plate", "inbox", recipient])
        #expect(inbox.out.contains("Your lights are on."))
        for run in [add, resolve, message, inbox] { #expect(!run.out.contains("gil@") && !run.err.contains("gil@")) }
        // Refused with a reason: a look-alike letter, an emoji, a country name.
        let cyrillic = try demo.seer(["user", "add", "--name", "N", "--email", "n@example.com", "--plate", "АB12CDE", "--country", "GB"])
        #expect(cyrillic.status == 64 && cyrillic.err.contains("Cyrillic"))
        let emoji = try demo.seer(["plate", "resolve", "AB12😀CDE"])
        #expect(emoji.status == 64 && emoji.err.contains("emoji"))
        #expect(try demo.seer(["plate", "normalize", "AB12😀CDE"]).status == 64)
        #expect(try demo.seer(["plate", "message", "AB12😀CDE", "--preset", "lights"]).status == 64)
        let country = try demo.seer(["user", "add", "--name", "N", "--email", "n@example.com", "--plate", "AB12CDE", "--country", "United Kingdom"])
        #expect(country.status == 64 && country.err.contains("ISO 3166"))
        let badEmail = try demo.seer(["user", "add", "--name", "N", "--email", "nobody", "--plate", "AB12CDE", "--country", "GB"])
        #expect(badEmail.status == 1 && badEmail.err.contains("email"))
    }

    @Test func regionIsTheGrammarRegionEverywhere() throws {
        let demo = try Demo()
        for command in [["scan"], ["plate", "read"]] {
            let run = try SeerBinary.run(command + ["--region", "United Kingdom", "\(Self.images)/plates/uk.png"])
            #expect(run.status == 64 && run.err.contains("--region"))
        }
        #expect(try SeerBinary.run(["plate", "normalize", "--region", "GB", "AB12CDE"]).status == 64)
        // In the owner commands --region GB, as they once took it, is the owner's country.
        let legacy = try demo.seer(["plate", "resolve", "LN6B XKT", "--region", "GB", "--format", "json"])
        #expect(legacy.status == 0 && legacy.out.contains("rcp-3d8e52") && legacy.err.contains("--country"))
        let current = try demo.seer(["plate", "resolve", "LN6B XKT", "--country", "GB", "--region", "eu", "--format", "json"])
        #expect(current.status == 0 && current.out.contains("rcp-3d8e52"))
        #expect(try demo.seer(["plate", "resolve", "LN6B XKT", "--region", "United Kingdom"]).status == 64)
    }

    @Test func damagedRowsExitOneWithAMessage() throws {
        let demo = try Demo()
        #expect(try demo.seer(["verify", "--payload", "https://id.example.com/01/09506000134352/21/S1003"]).status == 0)
        // Damage the row as another program could.
        try damage(demo.db, "UPDATE scan SET verdict = 'bogus'")
        for command in [["stats"], ["history"], ["history", "--id", "1"]] {
            let run = try demo.seer(command)
            #expect(run.status == 1, "\(command)")
            #expect(run.err.contains("damagedRow") && run.err.contains("Scan #1"), "\(run.err)")
            let json = try demo.seer(command + ["--format", "json"])
            #expect(json.status == 1)
            #expect((try Self.objects(json).first?["error"] as? [String: Any])?["code"] as? String == "damagedRow")
        }
    }

    /// Changes the database from another process (Python's sqlite3 module).
    func damage(_ db: String, _ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()", db, sql]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
    }

    @Test func everyCommandTakesStandardInputAndDirectories() throws {
        let demo = try Demo()
        let photo = try Data(contentsOf: URL(fileURLWithPath: "\(Self.images)/products/authentic-link.png"))
        let plate = try Data(contentsOf: URL(fileURLWithPath: "\(Self.images)/plates/uk.png"))
        let charger = try Data(contentsOf: URL(fileURLWithPath: "\(Self.images)/products/charger-charging.png"))
        let info = try SeerBinary.run(["info", "-"], stdin: photo)
        #expect(info.status == 0 && info.out.hasPrefix("-: png"))
        let scan = try SeerBinary.run(["scan", "-"], stdin: photo)
        #expect(scan.status == 0 && scan.out.contains("09506000134352"))
        let plates = try SeerBinary.run(["plate", "read", "--region", "eu", "-"], stdin: plate)
        #expect(plates.status == 0 && plates.out.contains("LN68XKT"), "\(plates.err)")
        let verify = try demo.seer(["verify", "-", "--no-save"], stdin: photo)
        #expect(verify.status == 0 && verify.out.contains("AUTHENTIC"))
        let resolve = try demo.seer(["plate", "resolve", "--photo", "-", "--country", "GB"], stdin: plate)
        #expect(resolve.status == 0 && resolve.out.contains("rcp-3d8e52"), "\(resolve.err)")
        let chargerRun = try demo.seer(["charger", "-"], stdin: charger)
        #expect(chargerRun.status == 0 && chargerRun.out.contains("Charger occupied"))
        // Directories: every photo below, recursively, by one rule.
        let folder = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder.file("a/b"), withIntermediateDirectories: true)
        try photo.write(to: URL(fileURLWithPath: folder.file("a/b/product")))  // no extension: found by its bytes
        try plate.write(to: URL(fileURLWithPath: folder.file("a/uk.png")))
        try Data("not a photo".utf8).write(to: URL(fileURLWithPath: folder.file("a/notes.txt")))
        let listed = try SeerBinary.run(["info", folder.path])
        #expect(listed.lines.count == 2 && listed.status == 0)
        let scanned = try SeerBinary.run(["scan", "--format", "json", folder.path])
        #expect(scanned.lines.count == 2)
        let read = try SeerBinary.run(["plate", "read", "--region", "eu", "--format", "json", folder.path])
        #expect(read.lines.count == 2)
        let verified = try demo.seer(["verify", "--no-save", "--format", "json", folder.path])
        #expect(verified.lines.count == 2)  // one code, one photo without a code (the plate)
        // Registry files: a directory (every .json below it) and standard input.
        let registry = try TemporaryDirectory()
        let fromFolder = try SeerBinary.run(["registry", "import", "--db", registry.file("a.sqlite"), "--format", "json", Repository.path("Examples")])
        #expect(fromFolder.status == 0 && fromFolder.out.contains("\"files\":4"))
        let users = try Data(contentsOf: URL(fileURLWithPath: Repository.path("Examples/registry/users.json")))
        let fromStdin = try SeerBinary.run(["registry", "import", "--db", registry.file("b.sqlite"), "--format", "json", "-"], stdin: users)
        #expect(fromStdin.status == 0 && fromStdin.out.contains("\"users\":5"))
    }

    @Test func scanReportJSONMatchesTheGolden() throws {
        let golden = try String(contentsOfFile: Repository.path("Tests/SeerCLITests/Golden/scan-recalled.json"), encoding: .utf8)
        let run = try SeerBinary.run(["scan", "--format", "json", "TestImages/products/recalled.png"], directory: Repository.root)
        #expect(run.status == 0)
        #expect(run.out == golden)
    }
}

/// The `ScanReport` JSON is a product surface: its keys and shapes are pinned by a golden file that
/// holds every key a report can have (codes with their verification or charger answer, plates, the
/// resolved owner, timing).
@Suite struct ScanReportGoldenTests {
    @Test func decodesAndEncodesToTheGoldenBytes() throws {
        let golden = try String(contentsOfFile: Repository.path("Tests/SeerCLITests/Golden/scan-report-full.json"), encoding: .utf8)
        let report = try JSONDecoder().decode(ScanReport.self, from: Data(golden.utf8))
        #expect(report.symbols.count == 2)
        #expect(report.symbols[0].verification?.verdict == .suspicious)
        #expect(report.symbols[1].charger?.chargerID == "100003")
        #expect(report.plates?.first?.text == "LN68XKT")
        #expect(report.resolvedOwner?.recipient == "rcp-3d8e52")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(String(decoding: try encoder.encode(report), as: UTF8.self) + "\n" == golden)
    }
}
