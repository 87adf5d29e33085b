import Foundation
import SeerPostgres
import SeerStore
import SeerTestSupport
import Synchronization
import Testing

/// Processes sharing one PostgreSQL database through the built `seer`: concurrent batch runs, and
/// two `seer serve` replicas taking scans at once, lose nothing, duplicate nothing and count clones
/// right; keys made anywhere work everywhere; a SQLite history copies over exactly.
@Suite(.serialized, .enabled(if: TestPostgres.serverURL != nil, Comment(rawValue: TestPostgres.skipNote)))
struct PostgresProcessTests {
    static let registry = ["brands", "chargers", "products", "users"].map { Repository.path("Examples/registry/\($0).json") }

    /// The results a run printed (JSON Lines with a scan id).
    func printed(_ output: String) -> [[String: Any]] {
        output.split(separator: "\n").compactMap { text in
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], object["scanID"] is Int else {
                return nil
            }
            return object
        }
    }

    @Test func twoProcessesWritingAtOnceLoseNothingDuplicateNothingAndCountClonesRight() throws {
        let temporary = try TemporaryStore(.postgres)
        let url = try #require(temporary.postgres).url
        let folder = try TemporaryDirectory("seer-pg")
        #expect(try SeerBinary.run(["registry", "import", "--db", url] + Self.registry).status == 0)
        // Both runs scan the same ten items, 60 times each: 120 scans of every item in all.
        let serials = (0..<10).map { "S\(1001 + $0)" }
        var files: [String] = []
        for run in 0..<2 {
            let lines = (0..<600).map { "https://id.example.com/01/09506000134352/21/\(serials[$0 % 10])?run=\(run)&n=\($0)" }
            files.append(try folder.write("run-\(run).txt", lines.joined(separator: "\n") + "\n"))
        }
        let group = DispatchGroup()
        nonisolated(unsafe) var runs: [SeerBinary.Run?] = [nil, nil]
        for (index, file) in files.enumerated() {
            group.enter()
            DispatchQueue.global().async {
                // One through --db, one through SEER_DB.
                let arguments = ["verify", "--mode", "batch", "--format", "json", "--payload-file", file]
                runs[index] =
                    index == 0
                    ? try? SeerBinary.run(arguments + ["--db", url]) : try? SeerBinary.run(arguments, environment: ["SEER_DB": url])
                group.leave()
            }
        }
        group.wait()
        var results: [[String: Any]] = []
        for run in runs {
            let run = try #require(run)
            #expect(run.status == 0, "\(run.err)")
            let lines = printed(run.out)
            #expect(lines.count == 600)
            results += lines
        }
        // Nothing lost, nothing twice: every printed scan id once, and exactly those in the database.
        let ids = results.compactMap { $0["scanID"] as? Int }
        #expect(Set(ids).count == 1200)
        let store = temporary.store
        var saved: [Int64] = []
        var offset = 0
        while true {
            let page = try store.history(HistoryQuery(limit: 500, offset: offset))
            saved += page.scans.compactMap(\.id)
            guard let next = page.nextOffset else { break }
            offset = next
        }
        #expect(Set(saved) == Set(ids.map(Int64.init)))
        // Clone counters: each item's 21st to 120th scan (in the order they were saved) is over the
        // limit of 20, and each saw every scan before it: "k scans in the window" once for each k.
        for serial in serials {
            let counts = results.filter { ($0["serial"] as? String) == serial }.compactMap { result -> Int? in
                guard let notes = result["notes"] as? [String], let note = notes.first(where: { $0.hasSuffix("scans in the window; at most 20 expected.") })
                else { return nil }
                return Int(note.prefix { $0.isNumber })
            }
            #expect(counts.sorted() == Array(21...120), "\(serial)")
        }
        // Statistics agree with the scans.
        let statistics = try store.statistics(HistoryQuery())
        #expect(statistics.total == 1200)
        #expect(statistics.byCategory == [.init(key: "cosmetics", count: 1200)])
        #expect(statistics.byVerdict.reduce(0) { $0 + $1.count } == 1200)
    }

    /// Every scan id in the database, through the store.
    func savedIDs(_ store: any SeerStore) throws -> [Int64] {
        var saved: [Int64] = []
        var offset = 0
        while true {
            let page = try store.history(HistoryQuery(limit: 500, offset: offset))
            saved += page.scans.compactMap(\.id)
            guard let next = page.nextOffset else { break }
            offset = next
        }
        return saved
    }

    @Test func twoServeReplicasOnOneDatabaseShareKeysLoseNothingAndCountClonesRight() throws {
        let temporary = try TemporaryStore(.postgres)
        let url = try #require(temporary.postgres).url
        #expect(try SeerBinary.run(["registry", "import", "--db", url] + Self.registry).status == 0)
        // Keys made by the command line, in the database both replicas read.
        func key(_ role: String, _ name: String) throws -> String {
            let made = try SeerBinary.run(["apikey", "create", "--role", role, "--name", name, "--db", url])
            #expect(made.status == 0, "\(made.err)")
            return try #require(made.lines.first)
        }
        let admin = try key("admin", "ops")
        let phones = [try key("device", "phone-a"), try key("device", "phone-b")]
        // Two replicas on two loopback ports: one given --db, one SEER_DB.
        let replicas = [
            try ServeProcess(["--db", url, "--workers", "1"], environment: ["SEER_LOG": "warning"]),
            try ServeProcess(["--workers", "1"], environment: ["SEER_DB": url, "SEER_LOG": "warning"]),
        ]
        defer { for replica in replicas { _ = replica.stop() } }
        #expect(replicas[0].port != replicas[1].port)

        // Six items, 50 scans each, posted by 8 clients at once; each item's scans alternate between
        // the replicas (and the two device keys), so both replicas write every item's history.
        let serials = (0..<6).map { "S\(1001 + $0)" }
        let perItem = 50
        let total = serials.count * perItem
        let next = Mutex(0)
        let answers = Mutex<[(index: Int, status: Int, body: String)]>([])
        let deadline = Date().addingTimeInterval(180)
        let clients = DispatchGroup()
        for _ in 0..<8 {
            clients.enter()
            Thread.detachNewThread {
                defer { clients.leave() }
                while Date() < deadline {
                    let index = next.withLock { value -> Int in
                        defer { value += 1 }
                        return value
                    }
                    guard index < total else { return }
                    let round = index / serials.count
                    let payload = "https://id.example.com/01/09506000134352/21/\(serials[index % serials.count])"
                    let answer =
                        (try? replicas[round % 2].request(
                            "POST", "/v1/verify", key: phones[(round / 2) % 2], contentType: "text/plain", body: Array(payload.utf8))) ?? (0, "")
                    answers.withLock { $0.append((index, answer.0, answer.1)) }
                }
            }
        }
        clients.wait()
        let answered = answers.withLock { $0 }
        #expect(answered.count == total, "every scan answered within the time allowed")
        #expect(answered.allSatisfy { $0.status == 200 }, "\(answered.first { $0.status != 200 }.map { "\($0.status) \($0.body.prefix(300))" } ?? "")")
        let results = answered.compactMap { answer in
            (try? JSONSerialization.jsonObject(with: Data(answer.body.utf8))) as? [String: Any]
        }
        #expect(results.count == total)

        // Nothing lost, nothing twice: every returned scan id once, and exactly those in the database.
        let ids = results.compactMap { $0["scanID"] as? Int }.map(Int64.init)
        #expect(ids.count == total && Set(ids).count == total)
        let saved = try savedIDs(temporary.store)
        #expect(saved.count == total)
        #expect(Set(saved) == Set(ids))
        // Clone counters across the replicas: each item's 21st to 50th scan notes k scans in the
        // window once for each k (a replica that missed the other's scan would repeat a k).
        for serial in serials {
            let counts = results.filter { ($0["serial"] as? String) == serial }.compactMap { result -> Int? in
                guard let notes = result["notes"] as? [String], let note = notes.first(where: { $0.hasSuffix("scans in the window; at most 20 expected.") })
                else { return nil }
                return Int(note.prefix { $0.isNumber })
            }
            #expect(counts.sorted() == Array(21...perItem), "\(serial)")
        }
        // Statistics through either replica: the scans posted; each device key sees its own.
        for replica in replicas {
            let (status, body) = try replica.request("GET", "/v1/stats", key: admin)
            #expect(status == 200)
            let stats = try #require((try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any])
            #expect(stats["total"] as? Int == total, "\(body.prefix(300))")
            let perKey = try phones.map { phone -> Int in
                let (status, body) = try replica.request("GET", "/v1/stats", key: phone)
                #expect(status == 200)
                return ((try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any])?["total"] as? Int ?? -1
            }
            let rounds = (0..<perItem).map { ($0 / 2) % 2 }
            #expect(perKey == [0, 1].map { phone in rounds.filter { $0 == phone }.count * serials.count })
        }

        // A key made through one replica works on the other; revoked through that one, the first
        // refuses it within the second it may remember a key.
        let (created, made) = try replicas[0].request(
            "POST", "/v1/apikeys", key: admin, contentType: "application/json", body: Array(#"{"role":"device","name":"phone-c"}"#.utf8))
        #expect(created == 201)
        let madeObject = try #require((try? JSONSerialization.jsonObject(with: Data(made.utf8))) as? [String: Any])
        let newKey = try #require(madeObject["key"] as? String)
        let newID = try #require((madeObject["info"] as? [String: Any])?["id"] as? String)
        #expect(try replicas[1].request("GET", "/v1/stats", key: newKey).0 == 200)
        #expect(try replicas[0].request("GET", "/v1/stats", key: newKey).0 == 200)
        #expect(try replicas[1].request("DELETE", "/v1/apikeys/\(newID)", key: admin).0 == 200)
        #expect(try replicas[1].request("GET", "/v1/stats", key: newKey).0 == 401)
        Thread.sleep(forTimeInterval: 1.2)
        #expect(try replicas[0].request("GET", "/v1/stats", key: newKey).0 == 401)
        let listed = try SeerBinary.run(["apikey", "list", "--format", "json", "--db", url])
        #expect(listed.status == 0 && listed.lines.count == 4)
        #expect(listed.out.contains("\"phone-c\"") && !listed.out.contains(newKey))

        for replica in replicas { #expect(replica.stop() == 0, "\(replica.errorText.suffix(500))") }
    }

    @Test func aSQLiteHistoryCopiesIntoPostgreSQLExactly() throws {
        let folder = try TemporaryDirectory("seer-copy")
        let sqlite = folder.file("seer.sqlite")
        #expect(try SeerBinary.run(["registry", "import", "--db", sqlite] + Self.registry).status == 0)
        for serial in ["S1001", "S1002", "S1001"] {
            let run = try SeerBinary.run(["verify", "--db", sqlite, "--payload", "https://id.example.com/01/09506000134352/21/\(serial)"])
            #expect(run.status == 0, "\(run.err)")
        }
        #expect(try SeerBinary.run(["report", "2", "--reason", "box misprinted", "--db", sqlite]).status == 0)
        #expect(try SeerBinary.run(["plate", "message", "AB12CDE", "--preset", "lights", "--db", sqlite]).status == 0)

        let temporary = try TemporaryStore(.postgres)
        let url = try #require(temporary.postgres).url
        let copy = try SeerBinary.run(["db", "copy", "--from", sqlite, "--to", url, "--format", "json"])
        #expect(copy.status == 0, "\(copy.err)")
        let summary = try JSONDecoder().decode(CopySummary.self, from: Data(copy.out.utf8))
        #expect(summary.tables.first { $0.table == "scan" }?.rows == 3)
        #expect(summary.tables.first { $0.table == "report" }?.rows == 1)
        // The same answers from both.
        for command in [["history", "--format", "json"], ["history", "--id", "2", "--format", "json"], ["stats", "--format", "json"]] {
            let fromFile = try SeerBinary.run(command + ["--db", sqlite])
            let fromServer = try SeerBinary.run(command + ["--db", url])
            #expect(fromFile.status == 0 && fromServer.status == 0, "\(fromServer.err)")
            #expect(fromFile.out == fromServer.out, "\(command)")
        }
        // New scans continue after the copied ids.
        let next = try SeerBinary.run(["verify", "--db", url, "--format", "json", "--payload", "https://id.example.com/01/09506000134352/21/S1003"])
        #expect(printed(next.out).first?["scanID"] as? Int == 4)
        // A second copy is refused: the target is not empty, and nothing changed.
        let again = try SeerBinary.run(["db", "copy", "--from", sqlite, "--to", url])
        #expect(again.status == 1 && again.err.contains("notEmpty"))
        #expect(try temporary.store.statistics(HistoryQuery()).total == 4)
        // migrate reports the steps.
        let migrate = try SeerBinary.run(["db", "migrate", "--db", url, "--format", "json"])
        #expect(migrate.status == 0 && migrate.out.contains("v7-apikeys"))
    }
}
