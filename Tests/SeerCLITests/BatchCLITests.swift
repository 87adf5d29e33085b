import Foundation
import SeerTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Batches that survive: saved and printed as they are made, resumable after SIGKILL, and two runs
/// on one database both complete.
@Suite("seer verify --mode batch (built binary, real database)", .serialized)
struct BatchCLITests {
    static let registry = ["brands", "chargers", "products", "users"].map { Repository.path("Examples/registry/\($0).json") }

    func prepared(payloads count: Int) throws -> (folder: TemporaryDirectory, db: String, payloads: String) {
        let folder = try TemporaryDirectory("seer-batch")
        let db = folder.file("seer.sqlite")
        #expect(try SeerBinary.run(["registry", "import", "--db", db] + Self.registry).status == 0)
        let lines = (0..<count).map { "https://id.example.com/01/09506000134352/21/S\(1001 + $0 % 20)?n=\($0)" }
        let payloads = try folder.write("payloads.txt", lines.joined(separator: "\n") + "\n")
        return (folder, db, payloads)
    }

    /// Runs seer, reads standard output until `lines` lines came, then kills it with SIGKILL.
    func runAndKill(_ arguments: [String], after lines: Int) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: SeerBinary.path)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var data = Data()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            data.append(chunk)
            if data.reduce(0, { $0 + ($1 == 10 ? 1 : 0) }) >= lines { break }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        data.append(out.fileHandleForReading.readDataToEndOfFile())
        return String(decoding: data, as: UTF8.self)
    }

    /// Facts about the database, read by another process (Python's sqlite3 module).
    func inspect(_ db: String, _ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print('\\n'.join(str(r[0]) for r in c.execute(sys.argv[2])))", db, sql,
        ]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The scan ids and payload lines of complete JSON lines (a line cut by the kill is not counted).
    func printed(_ output: String) -> [(scan: Int, line: Int)] {
        output.split(separator: "\n").compactMap { text in
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                let scan = object["scanID"] as? Int, let line = object["line"] as? Int
            else { return nil }
            return (scan, line)
        }
    }

    @Test(arguments: [1, 70, 700])
    func killedAtAnyPointLosesNothingPrintedAndResumes(after lines: Int) throws {
        let count = 1500
        let (folder, db, payloads) = try prepared(payloads: count)
        defer { withExtendedLifetime(folder) {} }
        let arguments = ["verify", "--mode", "batch", "--format", "json", "--payload-file", payloads, "--db", db]
        let first = printed(try runAndKill(arguments, after: lines))
        // Every scan printed as saved is in the database, and the database is sound.
        let saved = Set(try inspect(db, "SELECT id FROM scan").split(separator: "\n").compactMap { Int($0) })
        #expect(first.allSatisfy { saved.contains($0.scan) })
        #expect(try inspect(db, "PRAGMA integrity_check") == "ok")
        // Resumed, the run saves the rest: each payload line once, over the two runs.
        let resumed = try SeerBinary.run(arguments + ["--resume"])
        #expect(resumed.status == 0, "\(resumed.err) \(resumed.out.split(separator: "\n").filter { $0.contains("error") }.prefix(2))")
        let second = printed(resumed.out)
        let lines = (first.map(\.line) + second.map(\.line)).sorted()
        #expect(Set(lines).count == lines.count)
        #expect(try inspect(db, "SELECT COUNT(*) FROM scan") == String(count))
        #expect(try inspect(db, "SELECT COUNT(DISTINCT batchID) FROM scan") == "1")
        #expect(try inspect(db, "SELECT COUNT(DISTINCT line) FROM (SELECT payload AS line FROM scan)") == String(count))
        // Repeats across the stop are still repeats of the batch.
        #expect(try inspect(db, "SELECT COUNT(*) FROM scan WHERE reasons LIKE '%duplicateInBatch%'") == String(count - 20))
    }

    @Test func twoBatchesOnOneDatabaseBothComplete() throws {
        let (folder, db, payloads) = try prepared(payloads: 1200)
        let other = try folder.write("other.txt", (0..<1200).map { "https://id.example.com/01/09506000134376/21/P\($0)" }.joined(separator: "\n"))
        let group = DispatchGroup()
        nonisolated(unsafe) var runs: [SeerBinary.Run?] = [nil, nil]
        for (index, file) in [payloads, other].enumerated() {
            group.enter()
            DispatchQueue.global().async {
                runs[index] = try? SeerBinary.run(["verify", "--mode", "batch", "--format", "json", "--payload-file", file, "--db", db])
                group.leave()
            }
        }
        group.wait()
        for run in runs {
            let run = try #require(run)
            #expect(run.status == 0, "\(run.err)")
            #expect(printed(run.out).count == 1200)
        }
        #expect(try inspect(db, "SELECT COUNT(*) FROM scan") == "2400")
        #expect(try inspect(db, "PRAGMA integrity_check") == "ok")
    }

    @Test func resumeNeedsABatch() throws {
        #expect(try SeerBinary.run(["verify", "--resume", "--payload", "x"]).status == 64)
    }
}
