import CSeerShims
import Foundation
import Testing

@testable import SeerServer

@Suite("seer serve: busy polling")
struct BusyPollTests {
    /// The threads of this process named `name`: (thread id, scheduling policy, CPUs allowed, CPU ticks).
    static func threads(named name: String) -> [(id: String, policy: Int, cpus: String, ticks: Int)] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { id in
            guard let comm = try? String(contentsOfFile: "/proc/self/task/\(id)/comm", encoding: .utf8),
                comm.trimmingCharacters(in: .whitespacesAndNewlines) == name,
                let stat = try? String(contentsOfFile: "/proc/self/task/\(id)/stat", encoding: .utf8),
                let status = try? String(contentsOfFile: "/proc/self/task/\(id)/status", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // After the name: state is field 3; utime 14, stime 15, policy 41.
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            let cpus = status.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") }?.split(separator: "\t").last.map(String.init) ?? ""
            return (id, Int(fields[38]) ?? -1, cpus, (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0))
        }
    }

    static func waitUntil(seconds: Double = 5, _ condition: () -> Bool) async throws -> Bool {
        let end = Date(timeIntervalSinceNow: seconds)
        while !condition() {
            if Date() > end { return false }
            try await Task.sleep(for: .milliseconds(2))
        }
        return true
    }

    @Test("a poller runs under SCHED_IDLE on its CPU; it parks with no job, polls while one is in hand and for the linger after, and stops")
    func lifecycle() async throws {
        let cpu = try #require(ServiceConfiguration.allowedCPUs().last)
        let name = "tpoll\(UInt16.random(in: 1000...9999))"
        let poll = BusyPoll(name: name, cpus: [cpu], linger: .milliseconds(150))
        #expect(try await Self.waitUntil { poll.parkedCount == 1 })
        let thread = try #require(Self.threads(named: "\(name)-0").first)
        #expect(thread.policy == 5)  // SCHED_IDLE
        #expect(thread.cpus == "\(cpu)")

        // Parked, it costs nothing.
        try await Task.sleep(for: .milliseconds(300))
        #expect(poll.parkedCount == 1)
        let parkedTicks = try #require(Self.threads(named: "\(name)-0").first).ticks
        #expect(parkedTicks - thread.ticks <= 1)

        // A job in hand wakes it; it polls until the job ends, then for the linger.
        poll.jobQueued()
        #expect(poll.parkedCount == 0)
        try await Task.sleep(for: .milliseconds(300))
        #expect(poll.parkedCount == 0)
        let finished = ContinuousClock.now
        poll.jobFinished()
        #expect(try await Self.waitUntil { poll.parkedCount == 1 })
        #expect(ContinuousClock.now - finished >= .milliseconds(150))

        poll.stop()
        #expect(poll.parkedCount == 0)
        #expect(try await Self.waitUntil { Self.threads(named: "\(name)-0").isEmpty })
    }

    @Test("the worker pool counts every job it queues as finished once: run, refused or timed out")
    func poolCountsJobs() async throws {
        let cpu = try #require(ServiceConfiguration.allowedCPUs().last)
        let poll = BusyPoll(name: "tpoll-pool", cpus: [cpu], linger: .milliseconds(1))
        let pool = WorkerPool(name: "tpool", threads: 1, queueLimit: 1, busyPoll: poll)
        #expect(try await pool.run { 7 } == 7)
        // One job running, one queued: a third is refused; one given too short a budget times out.
        let gate = DispatchSemaphore(value: 0)
        let running = Task { try await pool.run { gate.wait() } }
        try await Task.sleep(for: .milliseconds(50))
        let queued = Task { try await pool.run(budget: .milliseconds(20)) { 1 } }
        try await Task.sleep(for: .milliseconds(50))
        await #expect(throws: WorkerPool.Refusal.overloaded) { try await pool.run { 2 } }
        await #expect(throws: WorkerPool.Refusal.timedOut) { try await queued.value }
        #expect(poll.jobs.load(ordering: .relaxed) == 2)
        gate.signal()
        try await running.value
        pool.shutdown()
        #expect(poll.jobs.load(ordering: .relaxed) == 0)
        #expect(try await Self.waitUntil { poll.parkedCount == 1 })
        poll.stop()
    }

    @Test("parked workers are handed jobs last parked, first woken: one at a time, the photos go to one thread")
    func lastParkedFirstWoken() async throws {
        let pool = WorkerPool(name: "tlifo", threads: 3, queueLimit: 4)
        let allParked = { pool.state.withLock { $0.idle.count } == 3 }
        var names: [String] = []
        for _ in 0..<12 {
            // Each job is handed over only once every thread is parked again.
            #expect(try await Self.waitUntil(allParked))
            names.append(try await pool.run { Thread.current.name ?? "" })
        }
        #expect(Set(names).count == 1, "\(names)")
        #expect(names.first?.hasPrefix("tlifo-") == true)
        // Two at a time, two threads take them.
        var pairs: Set<String> = []
        for _ in 0..<6 {
            #expect(try await Self.waitUntil(allParked))
            // Each job waits for the other to start, so both are in hand at once, whichever is queued
            // first (run on one thread in turn, the first would time out waiting).
            let started = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
            async let first = pool.run {
                started.0.signal()
                _ = started.1.wait(timeout: .now() + 5)
                return Thread.current.name ?? ""
            }
            async let second = pool.run {
                started.1.signal()
                _ = started.0.wait(timeout: .now() + 5)
                return Thread.current.name ?? ""
            }
            let (a, b) = try await (first, second)
            #expect(a != b)
            pairs.formUnion([a, b])
        }
        #expect(pairs.count == 2, "\(pairs)")
        pool.shutdown()
    }

    @Test("the CPUs polled: the workers' when pinned, else the first workers + 1; none when turned off")
    func polledCPUs() throws {
        var configuration = ServiceConfiguration()
        configuration.workers = 2
        #expect(configuration.polledCPUs(allowed: [0, 1]) == [0, 1])
        #expect(configuration.polledCPUs(allowed: [0, 1, 2, 3]) == [0, 1, 2])
        configuration.workers = 1
        #expect(configuration.polledCPUs(allowed: [4, 6]) == [4, 6])
        #expect(configuration.polledCPUs(allowed: [4]) == [4])
        configuration.pinWorkers = .yes
        configuration.workers = 3
        #expect(configuration.polledCPUs(allowed: [0, 1]) == [0, 1])
        #expect(configuration.busyPoll == .milliseconds(1))
    }
}
