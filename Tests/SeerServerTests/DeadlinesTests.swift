import Foundation
import Synchronization
import Testing

@testable import SeerServer

/// The one thread that keeps a pool's time budgets and waits for room.
@Suite("seer serve: deadlines")
struct DeadlinesTests {
    /// Waits (without blocking a thread of Swift's pool) until `done` holds, for at most `limit`.
    static func wait(upTo limit: Duration, until done: () -> Bool) async throws {
        let end = ContinuousClock.now + limit
        while !done() && ContinuousClock.now < end { try await Task.sleep(for: .milliseconds(5)) }
    }

    @Test("an action runs once its deadline has passed, not before; a removed one never runs")
    func runsAndRemoves() async throws {
        let deadlines = Deadlines(name: "test-deadlines")
        defer { deadlines.stop() }
        let ran = Mutex<[String: ContinuousClock.Instant]>([:])
        let start = ContinuousClock.now
        _ = deadlines.add(at: start + .milliseconds(150)) { ran.withLock { $0["late"] = .now } }
        _ = deadlines.add(at: start + .milliseconds(50)) { ran.withLock { $0["early"] = .now } }
        let removed = deadlines.add(at: start + .milliseconds(100)) { ran.withLock { $0["removed"] = .now } }
        deadlines.remove(removed)
        #expect(deadlines.count == 2)
        try await Self.wait(upTo: .seconds(20)) { ran.withLock { $0.count } == 2 }
        let times = ran.withLock { $0 }
        #expect(Set(times.keys) == ["early", "late"])
        #expect(try #require(times["early"]) >= start + .milliseconds(50))
        #expect(try #require(times["late"]) >= start + .milliseconds(150))
        #expect(try #require(times["early"]) <= (times["late"] ?? start))
        // Past the removed one's deadline too: it stayed removed.
        try await Task.sleep(for: .milliseconds(100))
        #expect(ran.withLock { $0["removed"] } == nil)
        #expect(deadlines.count == 0)
    }

    @Test("a deadline earlier than the one the thread sleeps until still runs on time")
    func earlierDeadlineWakesTheThread() async throws {
        let deadlines = Deadlines(name: "test-deadlines")
        defer { deadlines.stop() }
        let ran = Mutex(false)
        let far = deadlines.add(at: .now + .seconds(600)) {}
        // Let the thread go to sleep until the far deadline.
        try await Task.sleep(for: .milliseconds(50))
        let start = ContinuousClock.now
        _ = deadlines.add(at: start + .milliseconds(20)) { ran.withLock { $0 = true } }
        try await Self.wait(upTo: .seconds(20)) { ran.withLock { $0 } }
        #expect(ran.withLock { $0 })
        // Long before the far deadline (a loaded machine may take seconds).
        #expect(ContinuousClock.now - start < .seconds(15))
        deadlines.remove(far)
        #expect(deadlines.count == 0)
    }

    @Test("jobs done within their budget and waiters given room leave no deadline behind; a job over budget is refused")
    func poolDeadlines() async throws {
        let pool = WorkerPool(name: "test", threads: 1, queueLimit: 0, waitLimit: 1)
        defer { pool.shutdown() }
        for value in 0..<20 {
            // The only thread counts as busy until just after it answers: wait for it.
            try await Self.wait(upTo: .seconds(20)) { pool.busy == 0 }
            #expect(try await pool.run(budget: .seconds(30)) { value } == value)
        }
        #expect(pool.deadlines.count == 0)
        // A waiter given room: its wait is over, its deadline removed.
        let release = DispatchSemaphore(value: 0)
        let held = Task { try await pool.run(budget: .seconds(30)) { release.wait() } }
        try await Self.wait(upTo: .seconds(20)) { pool.busy == 1 }
        let waiting = Task { try await pool.reserve(waiting: .seconds(30)) }
        try await Self.wait(upTo: .seconds(20)) { pool.waitingForRoom == 1 }
        #expect(pool.deadlines.count == 2)
        release.signal()
        try await held.value
        let room = try await waiting.value
        #expect(try await pool.run(reservation: room) { 1 } == 1)
        #expect(pool.deadlines.count == 0)
        try await Self.wait(upTo: .seconds(20)) { pool.busy == 0 }
        // Over budget: answered timedOut at the deadline, while the job still runs.
        let slow = DispatchSemaphore(value: 0)
        let start = ContinuousClock.now
        await #expect(throws: WorkerPool.Refusal.timedOut) { try await pool.run(budget: .milliseconds(100)) { slow.wait() } }
        #expect(ContinuousClock.now - start >= .milliseconds(100))
        #expect(pool.deadlines.count == 0)
        slow.signal()
    }
}
