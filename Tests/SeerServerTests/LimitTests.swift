import CSeerShims
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
            service.timeBudget = .seconds(4)
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
            for _ in 0..<500 where harness.service.recognition.depth == 0 { try await Task.sleep(for: .milliseconds(10)) }
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

    @Test("a caller that gives a resumer is resumed through it, once: after its job, and when its budget runs out")
    func resumer() async throws {
        let pool = WorkerPool(name: "test", threads: 1, queueLimit: 2)
        let queue = DispatchQueue(label: "resumer")
        let used = Mutex(0)
        let resumer: WorkerPool.Resumer = { resume in
            used.withLock { $0 += 1 }
            queue.async(execute: resume)
        }
        let value = try await pool.run(reservation: try await pool.reserve(waiting: .zero), resume: resumer) { 42 }
        #expect(value == 42)
        #expect(used.withLock { $0 } == 1)
        await #expect(throws: WorkerPool.Refusal.timedOut) {
            try await pool.run(reservation: try await pool.reserve(waiting: .zero), budget: .milliseconds(20), resume: resumer) {
                Thread.sleep(forTimeInterval: 0.2)
                return 1
            }
        }
        #expect(used.withLock { $0 } == 2)
        // The job that timed out ends later without resuming its caller again.
        #expect(try await pool.run { 3 } == 3)
        #expect(used.withLock { $0 } == 2)
        pool.shutdown()
    }

    @Test("a caller waiting for room is resumed through its resumer when room comes, or when its wait runs out")
    func waiterResumer() async throws {
        let pool = WorkerPool(name: "test", threads: 1, queueLimit: 0, waitLimit: 2)
        let queue = DispatchQueue(label: "resumer")
        let used = Mutex(0)
        let resumer: WorkerPool.Resumer = { resume in
            used.withLock { $0 += 1 }
            queue.async(execute: resume)
        }
        let release = DispatchSemaphore(value: 0)
        let busy = try await pool.reserve(waiting: .zero)
        async let first: Int = pool.run(reservation: busy) {
            release.wait()
            return 1
        }
        // The thread is taken: this caller waits for room, then runs.
        while pool.busy == 0 { try await Task.sleep(for: .milliseconds(5)) }
        async let waited = pool.reserve(waiting: .seconds(30), resume: resumer)
        while pool.waitingForRoom == 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(used.withLock { $0 } == 0)
        release.signal()
        let room = try await waited
        #expect(used.withLock { $0 } == 1, "resumed through the resumer when the first job ended")
        #expect(try await pool.run(reservation: room) { 2 } == 2)
        #expect(try await first == 1)
        // A wait that runs out is refused through the resumer too.
        let hold = try await pool.reserve(waiting: .zero)
        await #expect(throws: WorkerPool.Refusal.overloaded) { try await pool.reserve(waiting: .milliseconds(30), resume: resumer) }
        #expect(used.withLock { $0 } == 2)
        withExtendedLifetime(hold) {}
        pool.shutdown()
    }

    @Test("the pool runs jobs off the caller's thread, and every queued job before it stops")
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

@Suite("seer serve: scheduling")
struct SchedulingTests {
    @Test("the event loops give way to the workers (SCHED_BATCH); the workers keep the normal policy")
    func loopsGiveWay() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loops = Array(group.makeIterator())
        func batch(_ loop: any EventLoop) async throws -> Bool { try await loop.submit { seer_thread_is_batch_scheduled() == 1 }.get() }
        for loop in loops { #expect(try await batch(loop) == false) }
        #expect(SeerService.eventLoopsGiveWayToWorkers(group))
        for loop in loops { #expect(try await batch(loop)) }
        let pool = WorkerPool(name: "test", threads: 1, queueLimit: 1)
        #expect(try await pool.run { seer_thread_is_batch_scheduled() } == 0)
        pool.shutdown()
        try await group.shutdownGracefully()
    }

    @Test("a task's job run as the global executor runs it takes its hops between nonisolated functions at once; run as isolated to its loop, each hop is a job")
    func jobsRunAsGlobal() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let calls = 200
        let asGlobal = LoopTaskExecutor(loop: loop, isolated: false)
        let asLoop = LoopTaskExecutor(loop: loop, isolated: true)
        #expect(await withTaskExecutorPreference(asGlobal) { await hops(calls, on: loop) } == calls)
        #expect(await withTaskExecutorPreference(asLoop) { await hops(calls, on: loop) } == calls)
        // The job that enters and any that a hop back to the test's own executor leaves behind.
        #expect(asGlobal.jobs.load(ordering: .relaxed) <= 4)
        #expect(asLoop.jobs.load(ordering: .relaxed) >= calls)
        try await group.shutdownGracefully()
    }

    @Test("workers given CPUs are each kept on theirs; without, they may run on any the process may use")
    func pinnedWorkers() async throws {
        let allowed = ServiceConfiguration.allowedCPUs()
        try #require(!allowed.isEmpty)
        let cpu = try #require(allowed.last)
        let pinned = WorkerPool(name: "test", threads: 2, queueLimit: 8, cpus: [cpu])
        #expect(pinned.cpus == [cpu])
        for _ in 0..<6 { #expect(try await pinned.run { ServiceConfiguration.allowedCPUs() } == [cpu]) }
        pinned.shutdown()
        let free = WorkerPool(name: "test", threads: 2, queueLimit: 8)
        #expect(free.cpus.isEmpty)
        #expect(try await free.run { ServiceConfiguration.allowedCPUs() } == allowed)
        free.shutdown()
    }

    @Test("workers are pinned by default only when there is one per CPU, and more than one")
    func pinningPolicy() {
        var configuration = ServiceConfiguration()
        configuration.workers = 2
        #expect(configuration.workerCPUs(allowed: [0, 1]) == [0, 1])
        #expect(configuration.workerCPUs(allowed: [2, 5]) == [2, 5])
        #expect(configuration.workerCPUs(allowed: [0, 1, 2, 3]) == [])
        #expect(configuration.workerCPUs(allowed: [0]) == [])
        #expect(configuration.workerCPUs(allowed: []) == [])
        configuration.workers = 1
        #expect(configuration.workerCPUs(allowed: [3]) == [])
        configuration.pinWorkers = .yes
        #expect(configuration.workerCPUs(allowed: [0, 1, 2, 3]) == [0, 1, 2, 3])
        configuration.workers = 2
        configuration.pinWorkers = .no
        #expect(configuration.workerCPUs(allowed: [0, 1]) == [])
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

/// Runs the jobs of the tasks that prefer it on `loop`, as `SeerService.runTasksOnEventLoops()` does
/// (`isolated: false`) or as `EventLoop.enqueue(_:)` does (`isolated: true`), and counts them.
final class LoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop
    let isolated: Bool
    let jobs = Atomic(0)

    init(loop: any EventLoop, isolated: Bool) {
        self.loop = loop
        self.isolated = isolated
    }

    func enqueue(_ job: consuming ExecutorJob) {
        jobs.add(1, ordering: .relaxed)
        let job = UnownedJob(job)
        if isolated {
            loop.enqueue(ExecutorJob(job))
            return
        }
        let address = UInt(bitPattern: unsafeBitCast(job, to: UnsafeMutableRawPointer.self))
        loop.execute { seer_run_global_job(UnsafeMutableRawPointer(bitPattern: address)) }
    }
}

/// Steps, each an opaque call of a nonisolated async function, all on `loop`'s thread; the count of
/// those that ran there.
func hops(_ count: Int, on loop: any EventLoop) async -> Int {
    var onLoop = 0
    for _ in 0..<count where await opaqueStep(loop) { onLoop += 1 }
    return onLoop
}

/// A nonisolated async function the optimiser cannot see into: its call and return are hops.
nonisolated(unsafe) var opaqueStep: @Sendable (any EventLoop) async -> Bool = { loop in loop.inEventLoop }
