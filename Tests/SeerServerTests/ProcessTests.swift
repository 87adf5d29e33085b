import Foundation
import Seer
import SeerServer
import SeerTestSupport
import Testing

/// The built `seer serve` as a user runs it: keys from `seer apikey`, a real socket, SIGTERM.
@Suite("seer serve: the process")
struct ProcessTests {
    /// A running `seer serve` (SeerTestSupport's, shared with the PostgreSQL replica test).
    typealias Server = ServeProcess

    @Test("keys from seer apikey; a request in flight at SIGTERM finishes and is saved; the process exits 0")
    func gracefulShutdown() throws {
        let directory = try TemporaryDirectory("seer-serve-process")
        let db = directory.file("seer.sqlite")
        let registry = try SeerBinary.run(["registry", "demo", directory.file("codes"), "--registry-dir", directory.file("registry")])
        #expect(registry.status == 0)
        #expect(try SeerBinary.run(["registry", "import", directory.file("registry"), "--db", db]).status == 0)
        let created = try SeerBinary.run(["apikey", "create", "--role", "device", "--name", "till-1", "--db", db])
        #expect(created.status == 0)
        // Only the key on standard output.
        #expect(created.lines.count == 1)
        let key = try #require(created.lines.first)
        #expect(key.hasPrefix("seer_"))
        let listed = try SeerBinary.run(["apikey", "list", "--format", "json", "--db", db])
        #expect(listed.lines.count == 1)
        #expect(listed.out.contains("\"till-1\"") && !listed.out.contains(key))

        let server = try Server(["--db", db, "--workers", "1"])
        let (health, _) = try server.request("GET", "/health", key: nil)
        #expect(health == 200)
        let (unauthorised, refusal) = try server.request("GET", "/v1/stats", key: nil)
        #expect(unauthorised == 401)
        #expect(refusal.contains("\"code\":\"unauthorized\""))
        // A plate read takes long enough to be in flight when SIGTERM arrives.
        let photo = Array(try Data(contentsOf: URL(fileURLWithPath: Repository.path("TestImages/products/authentic-link.png"))))
        nonisolated(unsafe) var inFlight: (Int, String) = (0, "")
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            inFlight = (try? server.request("POST", "/v1/scans?read=codes,plates", key: key, contentType: "image/png", body: photo)) ?? (0, "")
            done.signal()
        }
        // SIGTERM once the photo is on the worker.
        var busy = false
        for _ in 0..<400 where !busy {
            busy = (try? server.request("GET", "/metrics", key: nil).1.contains("seer_workers_busy 1")) ?? false
            if !busy { Thread.sleep(forTimeInterval: 0.005) }
        }
        #expect(busy)
        #expect(server.stop() == 0)
        done.wait()
        #expect(inFlight.0 == 200, "in flight: \(inFlight.1.prefix(200))")
        #expect(inFlight.1.contains("\"verdict\":\"authentic\""))
        let history = try SeerBinary.run(["history", "--format", "json", "--db", db])
        #expect(history.out.contains("\"device\":\"till-1\""))

        let id = try #require(listed.out.split(separator: "\"id\":\"").dropFirst().first?.prefix(8)).description
        #expect(try SeerBinary.run(["apikey", "revoke", id, "--db", db]).status == 0)
        let again = try Server(["--db", db])
        let (revoked, _) = try again.request("GET", "/v1/stats", key: key)
        #expect(revoked == 401)
        #expect(again.errorText.contains("listening"), "\(again.errorText.prefix(500))")
        #expect(again.stop() == 0)
    }

    @Test("--demo prints one key per role and serves the demo registry")
    func demo() throws {
        let server = try Server(["--demo"])
        defer { _ = server.stop() }
        let keys = String(decoding: server.output.fileHandleForReading.availableData, as: UTF8.self)
            .split(separator: "\n").map { $0.split(separator: " ") }
        #expect(keys.map { String($0.first ?? "") } == ["device", "user", "admin", "app"])
        let user = String(keys.first { $0.first == "user" }?.last ?? "")
        // The web app's link signs in with the device and user keys, in the fragment only.
        let device = String(keys.first { $0.first == "device" }?.last ?? "")
        let link = String(keys.first { $0.first == "app" }?.last ?? "")
        #expect(link == "http://127.0.0.1:\(server.port)/app/#device=\(device)&user=\(user)")
        let (app, page) = try server.request("GET", "/app/", key: nil)
        #expect(app == 200)
        #expect(page.contains("<script type=\"module\" src=\"app.js\"></script>"))
        let (status, body) = try server.request("GET", "/v1/chargers/100001", key: user)
        #expect(status == 200)
        #expect(body.contains("\"chargerID\":\"100001\""))
        let (inbox, _) = try server.request("GET", "/v1/inbox", key: user)
        #expect(inbox == 200)
        // The listening line names the limits in force.
        #expect(server.errorText.contains("queue=") && server.errorText.contains("waiting="), "\(server.errorText.prefix(500))")
    }
}
