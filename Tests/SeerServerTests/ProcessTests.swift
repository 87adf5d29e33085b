import Foundation
import Seer
import SeerTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The built `seer serve` as a user runs it: keys from `seer apikey`, a real socket, SIGTERM.
@Suite("seer serve: the process")
struct ProcessTests {
    /// A running `seer serve`, its port read from its log.
    final class Server: @unchecked Sendable {
        let process = Process()
        let port: Int
        let errors: Pipe
        let output: Pipe

        init(_ arguments: [String]) throws {
            process.executableURL = URL(fileURLWithPath: SeerBinary.path)
            process.arguments = ["serve", "--port", "0"] + arguments
            output = Pipe()
            errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            var log = ""
            var found: Int?
            let handle = errors.fileHandleForReading
            let deadline = Date().addingTimeInterval(30)
            while found == nil, Date() < deadline {
                let data = handle.availableData
                if data.isEmpty { break }
                log += String(decoding: data, as: UTF8.self)
                if let range = log.range(of: "listening on http://127.0.0.1:") {
                    found = Int(log[range.upperBound...].prefix { $0.isNumber })
                }
            }
            guard let found else {
                process.terminate()
                throw Failure(text: "seer serve did not start: \(log)")
            }
            port = found
        }

        struct Failure: Error, CustomStringConvertible {
            var text: String
            var description: String { text }
        }

        /// One HTTP/1.1 request over a new connection; returns the status and body.
        func request(_ method: String, _ path: String, key: String?, contentType: String? = nil, body: [UInt8] = []) throws -> (Int, String) {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else { throw Failure(text: "cannot connect: errno \(errno)") }
            var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: \(body.count)\r\n"
            if let key { head += "Authorization: Bearer \(key)\r\n" }
            if let contentType { head += "Content-Type: \(contentType)\r\n" }
            let bytes = Array((head + "\r\n").utf8) + body
            var sent = 0
            while sent < bytes.count {
                let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { throw Failure(text: "send failed") }
                sent += n
            }
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { break }
                received += buffer[0..<n]
            }
            let text = String(decoding: received, as: UTF8.self)
            let status = Int(text.split(separator: " ", maxSplits: 2).dropFirst().first ?? "") ?? 0
            let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
            return (status, body)
        }

        /// Sends SIGTERM and waits for the exit status.
        func stop() -> Int32 {
            process.terminate()
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

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
        #expect(again.stop() == 0)
    }

    @Test("--demo prints one key per role and serves the demo registry")
    func demo() throws {
        let server = try Server(["--demo"])
        defer { _ = server.stop() }
        let keys = String(decoding: server.output.fileHandleForReading.availableData, as: UTF8.self)
            .split(separator: "\n").map { $0.split(separator: " ") }
        #expect(keys.map { String($0.first ?? "") } == ["device", "user", "admin"])
        let user = String(keys.first { $0.first == "user" }?.last ?? "")
        let (status, body) = try server.request("GET", "/v1/chargers/100001", key: user)
        #expect(status == 200)
        #expect(body.contains("\"chargerID\":\"100001\""))
        let (inbox, _) = try server.request("GET", "/v1/inbox", key: user)
        #expect(inbox == 200)
    }
}
