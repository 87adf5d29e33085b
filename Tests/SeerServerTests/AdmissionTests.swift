import Foundation
import Hummingbird
import HummingbirdTesting
import Seer
import SeerTestSupport
import Synchronization
import Testing

@testable import SeerServer

/// A photo that finds the queue full: it waits for room, its body unread, then is served or refused.
@Suite("seer serve: room in the queue")
struct AdmissionTests {
    /// Holds the pool's only worker until `release` is signalled (waiting without blocking a thread of
    /// Swift's pool, which the service needs too).
    static func hold(_ pool: WorkerPool) async throws -> (task: Task<Void, any Error>, release: DispatchSemaphore) {
        let release = DispatchSemaphore(value: 0)
        let started = Mutex(false)
        let task = Task {
            try await pool.run(waiting: .seconds(20)) {
                started.withLock { $0 = true }
                release.wait()
            }
        }
        for _ in 0..<2000 where !started.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(started.withLock { $0 })
        return (task, release)
    }

    @Test("admission: a job takes room before it runs; callers wait in turn, bounded in number and time")
    func admission() async throws {
        let pool = WorkerPool(name: "test", threads: 1, queueLimit: 0, waitLimit: 1)
        defer { pool.shutdown() }
        let (held, release) = try await Self.hold(pool)
        #expect(pool.isFull)
        // No room: one caller waits, the next is refused at once.
        let waiting = Task { try await pool.run(waiting: .seconds(20)) { 42 } }
        for _ in 0..<500 where pool.waitingForRoom == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(pool.waitingForRoom == 1)
        let start = ContinuousClock.now
        await #expect(throws: WorkerPool.Refusal.overloaded) { _ = try await pool.run(waiting: .seconds(20)) { 0 } }
        // At once, not after the 20 s it would have waited (a loaded machine may take seconds).
        #expect(ContinuousClock.now - start < .seconds(15))
        // Without a wait, a caller that finds no room is refused at once.
        await #expect(throws: WorkerPool.Refusal.overloaded) { _ = try await pool.run { 0 } }
        // Room frees: it goes to the waiting caller, whose job then runs.
        release.signal()
        try await held.value
        #expect(try await waiting.value == 42)
        #expect(pool.depth == 0)
        #expect(!pool.isFull)
        #expect(try await pool.run { 7 } == 7)
        // A caller that waits longer than its time is refused.
        let (heldAgain, releaseAgain) = try await Self.hold(pool)
        let waited = ContinuousClock.now
        await #expect(throws: WorkerPool.Refusal.overloaded) { _ = try await pool.run(waiting: .milliseconds(200)) { 0 } }
        #expect(ContinuousClock.now - waited >= .milliseconds(200))
        #expect(pool.waitingForRoom == 0)
        releaseAgain.signal()
        try await heldAgain.value
    }

    @Test("the waiting room holds 128 photos per worker by default, never fewer than the queue")
    func waitingRoomSize() throws {
        var configuration = ServiceConfiguration()
        configuration.workers = 2
        #expect(configuration.effectiveQueueLimit == 32)
        #expect(configuration.effectiveAdmissionLimit == 256)
        configuration.queueLimit = 1000
        #expect(configuration.effectiveAdmissionLimit == 1000)
        configuration.admissionLimit = 3
        #expect(configuration.effectiveAdmissionLimit == 3)
        let harness = try Harness { service, _ in
            service.workers = 2
            service.queueLimit = 1000
            service.admissionLimit = 3
        }
        #expect(harness.service.recognition.waitLimit == 3)
        #expect(harness.service.recognition.queueLimit == 1000)
    }

    @Test("a photo that finds the queue full waits for room, then is read and served")
    func waitsForRoom() async throws {
        let harness = try Harness { service, _ in
            service.workers = 1
            service.queueLimit = 0
            service.admissionLimit = 1
            service.admissionWait = .seconds(20)
        }
        let photo = try Photos.bytes("TestImages/products/authentic-link.png")
        let (held, release) = try await Self.hold(harness.service.recognition)
        try await harness.test { client in
            async let waiting = client.send(.post, "/v1/scans", key: harness.device, contentType: "image/png", body: photo)
            for _ in 0..<500 where harness.service.recognition.waitingForRoom == 0 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(harness.service.recognition.waitingForRoom == 1)
            let metrics = try await client.send(.get, "/metrics")
            #expect(metrics.text.contains("seer_waiting_for_room 1"))
            release.signal()
            try await held.value
            let served = try await waiting
            #expect(served.status == 200)
            #expect(served.text.contains("\"verdict\":\"authentic\""))
        }
    }

    @Test("a full queue answers a photo 503 with Retry-After after the admission wait; a request whose photo has not arrived holds no room")
    func refusedAfterTheWait() async throws {
        let harness = try Harness { service, _ in
            service.workers = 1
            service.queueLimit = 0
            service.admissionLimit = 1
            service.admissionWait = .milliseconds(300)
        }
        let photo = try Photos.bytes("TestImages/products/authentic-link.png")
        let pool = harness.service.recognition
        let (held, release) = try await Self.hold(pool)
        try await harness.service.application().test(.live) { client in
            let port = try #require(client.port)
            // The head of a 5 MB upload, and not one byte of its body: it waits for its photo, not for room.
            let stalled = try LoopbackSocket(port: port)
            try stalled.send(Array("POST /v1/scans HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(harness.device)\r\nContent-Type: image/jpeg\r\nContent-Length: 5000000\r\n\r\n".utf8))
            try await Task.sleep(for: .milliseconds(200))
            #expect(pool.waitingForRoom == 0)
            // A whole photo waits for room for the admission wait, then is refused.
            let start = ContinuousClock.now
            let answer = try await DepartureTests.scan(client, harness, photo)
            #expect(answer.status == .serviceUnavailable)
            #expect(answer.headers[.retryAfter] == "1")
            #expect(String(buffer: answer.body).contains("\"code\":\"overloaded\""))
            #expect(ContinuousClock.now - start >= .milliseconds(300))
            // A body-less request finds the service answering.
            #expect(try await client.execute(uri: "/health", method: .get).status == .ok)
            stalled.close()
        }
        release.signal()
        try await held.value
    }
}

/// A photo whose client goes away is dropped: from the waiting room at once, and from the queue
/// without being recognised.
@Suite("seer serve: clients that go away")
struct DepartureTests {
    static func upload(_ harness: Harness, _ photo: [UInt8]) -> [UInt8] {
        let head = "POST /v1/scans HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(harness.device)\r\nContent-Type: image/png\r\nContent-Length: \(photo.count)\r\n\r\n"
        return Array(head.utf8) + photo
    }

    static func until(_ condition: () -> Bool) async throws {
        for _ in 0..<1000 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
    }

    /// A service with one worker, held (released through `release`), and the photo to send.
    static func heldService(_ configure: @escaping (inout ServiceConfiguration) -> Void) async throws
        -> (harness: Harness, photo: [UInt8], held: Task<Void, any Error>, release: DispatchSemaphore)
    {
        let harness = try Harness { service, _ in
            service.workers = 1
            configure(&service)
        }
        let photo = try Photos.bytes("TestImages/products/authentic-link.png")
        let (held, release) = try await AdmissionTests.hold(harness.service.recognition)
        return (harness, photo, held, release)
    }

    /// The service's `/metrics` text.
    static func metrics(_ harness: Harness) -> String { harness.service.metrics.render(pool: harness.service.recognition) }

    /// A scan of `photo` by a client that stays.
    static func scan(_ client: some TestClientProtocol, _ harness: Harness, _ photo: [UInt8]) async throws -> TestResponse {
        try await client.execute(
            uri: "/v1/scans", method: .post, headers: [.authorization: "Bearer \(harness.device)", .contentType: "image/png"],
            body: ByteBuffer(bytes: photo))
    }

    @Test("a photo whose client goes while it waits for room gives up its place at once")
    func leavesTheWaitingRoom() async throws {
        let (harness, photo, held, release) = try await Self.heldService { service in
            service.queueLimit = 0
            service.admissionLimit = 1
            service.admissionWait = .seconds(60)
        }
        let pool = harness.service.recognition
        try await harness.service.application().test(.live) { client in
            let port = try #require(client.port)
            let connection = try LoopbackSocket(port: port)
            try connection.send(Self.upload(harness, photo))
            try await Self.until { pool.waitingForRoom == 1 }
            #expect(pool.waitingForRoom == 1)
            connection.close()
            // Long before its 60 s wait would end.
            try await Self.until { pool.waitingForRoom == 0 }
            #expect(pool.waitingForRoom == 0)
            try await Self.until { Self.metrics(harness).contains("reason=\"clientClosedRequest\"} 1") }
            #expect(Self.metrics(harness).contains("seer_refused_total{reason=\"clientClosedRequest\"} 1"))
            // The place is free: the next photo waits in it, and is served when the worker frees.
            async let next = Self.scan(client, harness, photo)
            try await Self.until { pool.waitingForRoom == 1 }
            release.signal()
            try await held.value
            #expect(try await next.status == .ok)
            #expect(Self.metrics(harness).contains("seer_recognitions_total{outcome=\"ok\"} 1"))
        }
    }

    @Test("a queued photo whose client has gone is not recognised")
    func skippedInTheQueue() async throws {
        let (harness, photo, held, release) = try await Self.heldService { service in
            service.queueLimit = 1
            service.admissionLimit = 0
        }
        let pool = harness.service.recognition
        try await harness.service.application().test(.live) { client in
            let port = try #require(client.port)
            let connection = try LoopbackSocket(port: port)
            try connection.send(Self.upload(harness, photo))
            // Read and queued behind the held job.
            try await Self.until { pool.depth == 1 }
            #expect(pool.depth == 1)
            connection.close()
            let connections = harness.service.connections
            try await Self.until { connections.open.withLock { $0.values.contains(where: \.isGone) } }
            release.signal()
            try await held.value
            try await Self.until { pool.depth == 0 && pool.busy == 0 }
            try await Self.until { Self.metrics(harness).contains("reason=\"clientClosedRequest\"} 1") }
            let metrics = Self.metrics(harness)
            #expect(metrics.contains("seer_refused_total{reason=\"clientClosedRequest\"} 1"))
            #expect(!metrics.contains("seer_recognitions_total{"))
            // A client that stays is served as ever.
            let served = try await Self.scan(client, harness, photo)
            #expect(served.status == .ok)
            #expect(Self.metrics(harness).contains("seer_recognitions_total{outcome=\"ok\"} 1"))
        }
    }

    @Test("a client's presence: watchers run once when it goes, at once when it has gone, never once forgotten")
    func presence() {
        let presence = ClientPresence()
        let calls = Mutex<[String]>([])
        let first = presence.whenGone { calls.withLock { $0.append("first") } }
        let second = presence.whenGone { calls.withLock { $0.append("second") } }
        #expect(first != nil)
        #expect(second != nil)
        if let second { presence.forget(second) }
        #expect(!presence.isGone)
        presence.depart()
        presence.depart()
        #expect(presence.isGone)
        #expect(calls.withLock { $0 } == ["first"])
        #expect(presence.whenGone { calls.withLock { $0.append("late") } } == nil)
        #expect(calls.withLock { $0 } == ["first", "late"])
    }
}

/// A raw HTTP/1.1 exchange over a socket, to send a request's head without its body.
enum RawHTTP {
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs blocking socket work on a thread of its own, not on Swift's pool.
    static func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Sends `head` (nothing more) and reads one answer (its headers and its Content-Length body).
    static func headOnly(port: Int, head: String, timeout: Int = 20) throws -> Answer {
        let connection = try LoopbackSocket(port: port, timeout: timeout)
        try connection.send(Array(head.utf8))
        return try read(connection)
    }

    /// Reads one answer (its headers and its Content-Length body) from `connection`.
    static func read(_ connection: LoopbackSocket) throws -> Answer {
        var received: [UInt8] = []
        while true {
            let text = String(decoding: received, as: UTF8.self)
            if let end = text.range(of: "\r\n\r\n") {
                let lines = text[..<end.lowerBound].split(separator: "\r\n")
                var headers: [String: String] = [:]
                for line in lines.dropFirst() {
                    let pair = line.split(separator: ":", maxSplits: 1)
                    if pair.count == 2 { headers[pair[0].lowercased()] = pair[1].trimmingCharacters(in: .whitespaces) }
                }
                let body = String(text[end.upperBound...])
                if body.utf8.count >= Int(headers["content-length"] ?? "0") ?? 0 {
                    let status = Int(lines.first?.split(separator: " ", maxSplits: 2).dropFirst().first ?? "") ?? 0
                    return Answer(status: status, headers: headers, body: body)
                }
            }
            let bytes: [UInt8]
            do { bytes = try connection.receive() } catch { throw Failure(description: "no answer in time (\(error))") }
            if bytes.isEmpty { throw Failure(description: "closed before a whole answer: \(String(decoding: received, as: UTF8.self))") }
            received += bytes
        }
    }
}
