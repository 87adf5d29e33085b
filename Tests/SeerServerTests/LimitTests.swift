import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOPosix
import Seer
import SeerTestSupport
import Synchronization
import Testing

@testable import SeerServer

@Suite("seer serve: keys and roles")
struct AuthTests {
    @Test("every auth outcome: none, malformed, unknown, revoked, wrong role, right role")
    func outcomes() async throws {
        let harness = try Harness()
        try await harness.test { client in
            let none = try await client.send(.get, "/v1/stats")
            #expect(none.status == 401)
            #expect(none.errorCode == "unauthorized")
            #expect(none.headers[.wwwAuthenticate] == "Bearer")
            let basic = try await client.send(.get, "/v1/stats", headers: [.authorization: "Basic dXNlcjpwYXNz"])
            #expect(basic.status == 401)
            let unknown = try await client.send(.get, "/v1/stats", key: "seer_00000000_notakey")
            #expect(unknown.status == 401)
            let junk = try await client.send(.get, "/v1/stats", key: String(repeating: "x", count: 500))
            #expect(junk.status == 401)

            // Each role on a route of another role.
            let userScans = try await client.send(.post, "/v1/scans", key: harness.user, contentType: "image/png", body: [1, 2, 3])
            #expect(userScans.status == 403)
            #expect(userScans.errorCode == "forbidden")
            let deviceRegistry = try await client.json(.put, "/v1/registry", key: harness.device, [:])
            #expect(deviceRegistry.status == 403)
            let deviceResolve = try await client.json(.post, "/v1/plates/resolve", key: harness.device, ["plate": "AB12CDE"])
            #expect(deviceResolve.status == 403)
            let adminInbox = try await client.send(.get, "/v1/inbox", key: harness.admin)
            #expect(adminInbox.status == 403)
            let userKeys = try await client.send(.get, "/v1/apikeys", key: harness.user)
            #expect(userKeys.status == 403)
            // A device key scans as itself only.
            let spoofed = try await client.send(.get, "/v1/stats", key: harness.device)
            #expect(spoofed.status == 200)
            let otherDevice = try await client.send(
                .post, "/v1/scans", path: "/v1/scans?device=phone-2", key: harness.device, contentType: "image/png",
                body: try Photos.bytes("TestImages/products/authentic-link.png"))
            #expect(otherDevice.status == 403)

            let revoked = try harness.service.keys.create(role: .device, name: "lost-phone")
            #expect(try await client.send(.get, "/v1/stats", key: revoked.key).status == 200)
            try harness.service.keys.revoke(id: revoked.info.id)
            let afterRevoke = try await client.send(.get, "/v1/stats", key: revoked.key)
            #expect(afterRevoke.status == 401)
        }
    }
}

@Suite("seer serve: limits and bad requests")
struct LimitTests {
    @Test("bad requests get a clear 4xx and the service keeps serving")
    func badRequests() async throws {
        let harness = try Harness()
        try await harness.test { client in
            let wrongType = try await client.send(.post, "/v1/scans", key: harness.device, contentType: "text/plain", body: Array("hello".utf8))
            #expect(wrongType.status == 415)
            #expect(wrongType.errorCode == "unsupportedMediaType")
            let noType = try await client.send(.post, "/v1/scans", key: harness.device, body: try Photos.bytes("TestImages/products/authentic-link.png"))
            #expect(noType.status == 415)
            let notAnImage = try await client.send(.post, "/v1/scans", key: harness.device, contentType: "image/jpeg", body: Array("not a photo at all".utf8))
            #expect(notAnImage.status == 422)
            #expect(notAnImage.errorCode == "notAnImage")
            let empty = try await client.send(.post, "/v1/scans", key: harness.device, contentType: "image/jpeg", body: [])
            #expect(empty.status == 400)
            #expect(empty.errorCode == "empty")
            for (file, type) in [("truncated.jpg", "image/jpeg"), ("truncated.png", "image/png"), ("truncated.webp", "image/webp"), ("truncated.heic", "image/heic")] {
                let cut = try await client.send(.post, "/v1/scans", key: harness.device, contentType: type, body: try Photos.bytes("TestImages/malformed/\(file)"))
                #expect(cut.status == 422, "\(file)")
                #expect(cut.errorCode == "truncated", "\(file)")
            }
            // A photo cut short in transit: half of a good PNG.
            let good = try Photos.bytes("TestImages/products/authentic-link.png")
            let half = try await client.send(.post, "/v1/scans", key: harness.device, contentType: "image/png", body: Array(good.prefix(good.count / 2)))
            #expect(half.status == 422)
            #expect(half.errorCode == "truncated")
            // A multipart upload cut short: no closing boundary.
            var cutMultipart = Array("--b1\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"a.png\"\r\n\r\n".utf8)
            cutMultipart += good.prefix(100)
            let multipart = try await client.send(.post, "/v1/scans", key: harness.device, contentType: "multipart/form-data; boundary=b1", body: cutMultipart)
            #expect(multipart.status == 400)
            #expect(multipart.errorCode == "truncatedUpload")
            let noBoundary = try await client.send(.post, "/v1/scans", key: harness.device, contentType: "multipart/form-data", body: cutMultipart)
            #expect(noBoundary.errorCode == "invalidMultipart")
            let unsupported = try await client.send(.post, "/v1/scans", key: harness.device, contentType: "image/jpeg", body: Array("GIF89a\u{01}\u{00}\u{01}\u{00}".utf8))
            #expect(unsupported.status == 422)
            #expect(unsupported.errorCode == "unsupportedFormat")

            let badQuery = try await client.send(.post, "/v1/scans", path: "/v1/scans?read=barcodes", key: harness.device, contentType: "image/png", body: good)
            #expect(badQuery.status == 400)
            let unknownQuery = try await client.send(.get, "/v1/scans", path: "/v1/scans?colour=red", key: harness.device)
            #expect(unknownQuery.status == 400)
            #expect(unknownQuery.errorCode == "unknownParameter")
            let badLatitude = try await client.send(.post, "/v1/scans", path: "/v1/scans?lat=91", key: harness.device, contentType: "image/png", body: good)
            #expect(badLatitude.status == 400)
            let badPage = try await client.send(.get, "/v1/scans", path: "/v1/scans?page=0", key: harness.device)
            #expect(badPage.status == 400)
            let bigPage = try await client.send(.get, "/v1/scans", path: "/v1/scans?limit=5000", key: harness.device)
            #expect(bigPage.status == 400)
            let longSearch = try await client.send(.get, "/v1/scans", path: "/v1/scans?search=" + String(repeating: "a", count: 300), key: harness.device)
            #expect(longSearch.status == 413)
            #expect(longSearch.errorCode == "tooLarge")
            let badPeriod = try await client.send(.get, "/v1/stats", path: "/v1/stats?period=year", key: harness.device)
            #expect(badPeriod.status == 400)

            let invalidJSON = try await client.send(.post, "/v1/plates/resolve", key: harness.user, contentType: "application/json", body: Array("{\"plate\": ".utf8))
            #expect(invalidJSON.status == 400)
            #expect(invalidJSON.errorCode == "invalidJSON")
            let array = try await client.send(.post, "/v1/plates/resolve", key: harness.user, contentType: "application/json", body: Array("[1]".utf8))
            #expect(array.errorCode == "invalidJSON")
            let unknownField = try await client.json(.post, "/v1/plates/resolve", key: harness.user, ["plate": "AB12CDE", "owner": "me"])
            #expect(unknownField.status == 400)
            #expect(unknownField.errorCode == "unknownField")
            #expect(unknownField.text.contains("owner"))
            let wrongFieldType = try await client.json(.post, "/v1/plates/resolve", key: harness.user, ["plate": 42])
            #expect(wrongFieldType.errorCode == "invalidField")
            let formBody = try await client.send(.post, "/v1/plates/resolve", key: harness.user, contentType: "application/x-www-form-urlencoded", body: Array("plate=AB12CDE".utf8))
            #expect(formBody.status == 415)

            let unknownRoute = try await client.send(.get, "/v1/nothing", key: harness.device)
            #expect(unknownRoute.status == 404)
            #expect(unknownRoute.errorCode == "notFound")

            // Still serving, and still reading photos.
            #expect(try await client.send(.get, "/health").status == 200)
            let scan = try await client.send(.post, "/v1/scans", key: harness.device, contentType: "image/png", body: good)
            #expect(scan.status == 200)
            #expect((scan.object["symbols"] as? [Any])?.count == 1)
        }
    }

    @Test("the body limit is enforced while the body is read")
    func bodyLimit() async throws {
        let harness = try Harness { service, _ in service.maxBodyBytes = 1024 }
        try await harness.test { client in
            let big = try Photos.bytes("TestImages/products/authentic-link.png")
            #expect(big.count > 1024)
            let tooLarge = try await client.send(.post, "/v1/scans", key: harness.device, contentType: "image/png", body: big)
            #expect(tooLarge.status == 413)
            #expect(tooLarge.errorCode == "tooLarge")
            let registry = try await client.send(
                .put, "/v1/registry", key: harness.admin, contentType: "application/json", body: Array(repeating: 0x20, count: 2000))
            #expect(registry.status == 413)
            #expect(try await client.send(.get, "/health").status == 200)
        }
        // Streamed in pieces, with no Content-Length: the limit stops the reading itself.
        var pieces: [UInt8] = []
        let chunks = AsyncStream<ByteBuffer> { continuation in
            for _ in 0..<8 { continuation.yield(ByteBuffer(bytes: Array(repeating: 0xFF, count: 1024))) }
            continuation.finish()
        }
        let request = Request(
            head: HTTPRequest(method: .post, scheme: "http", authority: "localhost", path: "/v1/scans"),
            body: RequestBody(asyncSequence: chunks))
        do {
            pieces = try await request.bytes(limit: 4096)
            Issue.record("8 KiB passed a 4 KiB limit")
        } catch let error as APIError {
            #expect(error.status == .contentTooLarge)
        }
        #expect(pieces.isEmpty)
    }

    @Test("the pixel limit refuses a photo from its header")
    func pixelLimit() async throws {
        let harness = try Harness { _, engine in engine.decode.pixelLimit = 10_000 }
        try await harness.test { client in
            let photo = try await client.send(
                .post, "/v1/scans", key: harness.device, contentType: "image/png", body: try Photos.bytes("TestImages/products/authentic-link.png"))
            #expect(photo.status == 413)
            #expect(photo.errorCode == "tooLarge")
            let huge = try await client.send(.post, "/v1/scans", key: harness.device, contentType: "image/jpeg", body: try Photos.bytes("TestImages/malformed/huge.jpg"))
            #expect(huge.status == 413)
        }
    }

    @Test("a full queue answers 503 with Retry-After after the admission wait; a request past its budget answers 503")
    func queueAndBudget() async throws {
        let harness = try Harness { service, _ in
            service.workers = 1
            service.queueLimit = 1
            // Long enough that the queued photo is still waiting when the next one is refused, on a
            // test machine loaded enough to take seconds over each request.
            service.timeBudget = .seconds(15)
        }
        let photo = try Photos.bytes("TestImages/products/authentic-link.png")
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        // Hold the only worker.
        let held = Task {
            try await harness.service.recognition.run {
                started.signal()
                release.wait()
            }
        }
        // Waiting without blocking a thread of Swift's pool, which the service needs too.
        for _ in 0..<2000 where harness.service.recognition.busy == 0 { try await Task.sleep(for: .milliseconds(5)) }
        try await harness.test { client in
            // One photo waits in the queue (and runs out of budget there); the next finds the queue full.
            async let waiting = client.send(.post, "/v1/scans", key: harness.device, contentType: "image/png", body: photo)
            for _ in 0..<1000 where harness.service.recognition.depth == 0 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(harness.service.recognition.depth == 1)
            let full = try await client.send(.post, "/v1/scans", key: harness.device, contentType: "image/png", body: photo)
            // Refused because the queue stayed full through the admission wait (`overloaded`), not
            // for a budget (`timedOut`); how long that took is the machine's load, not checked here.
            #expect(full.status == 503)
            #expect(full.errorCode == "overloaded")
            #expect(full.headers[.retryAfter] == "1")
            let timedOut = try await waiting
            #expect(timedOut.status == 503)
            #expect(timedOut.errorCode == "timedOut")
            #expect(timedOut.headers[.retryAfter] != nil)
            // Requests that need no worker are still answered.
            #expect(try await client.send(.get, "/health").status == 200)
            release.signal()
            _ = try await held.value
            let served = try await client.send(.post, "/v1/scans", key: harness.device, contentType: "image/png", body: photo)
            #expect(served.status == 200)
            let metrics = try await client.send(.get, "/metrics")
            #expect(metrics.text.contains(#"seer_refused_total{reason="overloaded"} 1"#))
            #expect(metrics.text.contains(#"seer_refused_total{reason="timedOut"} 1"#))
        }
    }

    @Test("a job over its budget is answered timedOut at once, its cancellation requested; its room is given back when it ends")
    func budgetCancels() async throws {
        let pool = WorkerPool(name: "test", threads: 1, queueLimit: 0)
        defer { pool.shutdown() }
        let stopped = DispatchSemaphore(value: 0)
        // How long the job worked before it was asked to stop, timed on its own thread: the timer and
        // the job run on threads of their own, so this does not wait for Swift's pool, which other
        // suites running at the same time may keep busy.
        let askedAfter = Mutex<Duration?>(nil)
        await #expect(throws: WorkerPool.Refusal.timedOut) {
            try await pool.run(budget: .milliseconds(100)) {
                let start = ContinuousClock.now
                // Works until asked to stop, as recognition does between its steps.
                while !Cancellation.requested { Thread.sleep(forTimeInterval: 0.005) }
                askedAfter.withLock { $0 = ContinuousClock.now - start }
                stopped.signal()
                return 1
            }
        }
        #expect(stopped.wait(timeout: .now() + 10) == .success)
        let asked = try #require(askedAfter.withLock { $0 })
        #expect(asked < .seconds(5), "\(asked)")
        for _ in 0..<500 where pool.busy > 0 || pool.isFull { try await Task.sleep(for: .milliseconds(5)) }
        #expect(try await pool.run { 3 } == 3)
        // Work run without a budget is never asked to stop.
        #expect(try await pool.run { Cancellation.current != nil && !Cancellation.requested })
        #expect(!Cancellation.requested)
    }

    @Test("the pool runs jobs off the caller's thread; once shut down it refuses them")
    func poolShutdown() async throws {
        let pool = WorkerPool(name: "test", threads: 2, queueLimit: 10)
        final class Counter: Sendable {
            let value = Mutex(0)
            let threads = Mutex(Set<UInt>())
        }
        let count = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await pool.run {
                        // On one of the pool's threads, counted as running.
                        #expect(pool.busy >= 1)
                        count.threads.withLock { _ = $0.insert(UInt(pthread_self())) }
                        Thread.sleep(forTimeInterval: 0.01)
                        count.value.withLock { $0 += 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(count.value.withLock { $0 } == 8)
        #expect((1...2).contains(count.threads.withLock { $0.count }))
        pool.shutdown()
        await #expect(throws: WorkerPool.Refusal.closed) { try await pool.run { 1 } }
    }
}

@Suite("seer serve: the OpenAPI document")
struct ContractTests {
    @Test("the document lists exactly the routes the server registers, each with its security")
    func routesMatch() throws {
        let documented = Contract.shared.operations
        let registered = Set(SeerService.routes.map { "\($0.method) \($0.path)" })
        #expect(documented == registered, "only documented: \(documented.subtracting(registered)); only registered: \(registered.subtracting(documented))")
        for route in SeerService.routes {
            let operation = Contract.shared.paths[route.path]?[route.method.lowercased()] as? [String: Any]
            let security = operation?["security"] as? [[String: Any]] ?? []
            #expect(security.isEmpty == route.roles.isEmpty, "\(route.method) \(route.path): security does not match its roles")
            let responses = operation?["responses"] as? [String: Any] ?? [:]
            if !route.roles.isEmpty {
                #expect(responses["401"] != nil && responses["403"] != nil, "\(route.method) \(route.path) documents no 401/403")
            }
        }
    }

    @Test("the document is OpenAPI 3.1 and every reference resolves")
    func wellFormed() throws {
        let document = Contract.shared.document
        #expect((document["openapi"] as? String)?.hasPrefix("3.1.") == true)
        let text = String(decoding: OpenAPIDocument.bytes, as: UTF8.self)
        let schemas = ((document["components"] as? [String: Any])?["schemas"] as? [String: Any]) ?? [:]
        var references = 0
        var rest = text[...]
        while let range = rest.range(of: "#/components/schemas/") {
            let name = rest[range.upperBound...].prefix { $0 != "\"" }
            #expect(schemas[String(name)] != nil, "unresolved reference \(name)")
            references += 1
            rest = rest[range.upperBound...]
        }
        #expect(references > 10)
    }
}

@Suite("seer serve: header values")
struct HeaderValueTests {
    @Test("spaces and tabs around a header value are dropped, nothing else")
    func trimming() {
        #expect("  image/png \t".trimmingSpaces() == "image/png")
        #expect("Bearer seer_ab".split(separator: " ", maxSplits: 1)[1].trimmingSpaces() == "seer_ab")
        #expect(" \t ".trimmingSpaces() == "")
        #expect("".trimmingSpaces() == "")
        #expect(" café ".trimmingSpaces() == "café")
        #expect("a b".trimmingSpaces() == "a b")
        #expect("\u{00A0}x\n".trimmingSpaces() == "\u{00A0}x\n")
    }
}
