import Foundation
import Synchronization

/// A fixed set of threads that run blocking work (decoding, recognition, SQLite) off the event
/// loops and off Swift's cooperative pool, behind a bounded queue.
///
/// A job that finds the queue full is refused at once (``Refusal/overloaded``, a 503 with
/// `Retry-After`); a job that is not done within its time budget is answered with
/// ``Refusal/timedOut`` (and, if it had not started, never runs).
public final class WorkerPool: Sendable {
    /// Why a job did not run to its end.
    public enum Refusal: Error, Equatable {
        /// The queue was full.
        case overloaded
        /// The time budget ran out (waiting, working, or both).
        case timedOut
        /// The pool is shut down.
        case closed
    }

    /// A job, resumed exactly once: by its worker, or by its deadline.
    final class Job: Sendable {
        let work: @Sendable () -> Void
        let expire: @Sendable (Refusal) -> Void
        let isDone: @Sendable () -> Bool
        init(work: @escaping @Sendable () -> Void, expire: @escaping @Sendable (Refusal) -> Void, isDone: @escaping @Sendable () -> Bool) {
            self.work = work
            self.expire = expire
            self.isDone = isDone
        }
    }

    struct State {
        var queue: [Job] = []
        var head = 0
        var running = 0
        var closed = false
        var waiting: Int { queue.count - head }
    }

    /// Threads working.
    public let threads: Int
    /// Jobs that may wait for a thread; one more is refused.
    public let queueLimit: Int
    let state = Mutex(State())
    let signal = DispatchSemaphore(value: 0)
    let stopped = DispatchSemaphore(value: 0)

    /// Starts `threads` threads named `name`.
    public init(name: String, threads: Int, queueLimit: Int) {
        self.threads = max(1, threads)
        self.queueLimit = max(0, queueLimit)
        for index in 0..<self.threads {
            let thread = Thread { [self] in
                Thread.current.name = "\(name)-\(index)"
                self.loop()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Jobs waiting for a thread.
    public var depth: Int { state.withLock { $0.waiting } }
    /// Jobs running.
    public var busy: Int { state.withLock { $0.running } }
    /// Whether a job submitted now would be refused as ``Refusal/overloaded``.
    public var isFull: Bool { state.withLock { Self.full($0, threads: threads, queueLimit: queueLimit) } }

    static func full(_ state: State, threads: Int, queueLimit: Int) -> Bool {
        state.waiting >= queueLimit + max(0, threads - state.running)
    }

    /// Runs `work` on a pool thread and returns its result.
    /// - Throws: ``Refusal`` when the queue is full, the budget runs out or the pool is closed; else
    ///   what `work` throws.
    public func run<T: Sendable>(budget: Duration? = nil, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let pending = Mutex<CheckedContinuation<T, any Error>?>(continuation)
            let timer = Mutex<Task<Void, Never>?>(nil)
            @Sendable func finish(_ result: Result<T, any Error>) {
                guard let continuation = pending.withLock({ $0.take() }) else { return }
                timer.withLock { $0.take() }?.cancel()
                continuation.resume(with: result)
            }
            let job = Job(
                work: { finish(Result { try work() }) }, expire: { finish(.failure($0)) },
                isDone: { pending.withLock { $0 == nil } })
            let refusal: Refusal? = state.withLock { state in
                if state.closed { return .closed }
                if Self.full(state, threads: threads, queueLimit: queueLimit) { return .overloaded }
                state.queue.append(job)
                return nil
            }
            if let refusal {
                finish(.failure(refusal))
                return
            }
            signal.signal()
            if let budget {
                let task = Task {
                    do {
                        try await Task.sleep(for: budget)
                        job.expire(.timedOut)
                    } catch {}
                }
                timer.withLock { $0 = task }
                if job.isDone() { timer.withLock { $0.take() }?.cancel() }
            }
        }
    }

    func loop() {
        while true {
            signal.wait()
            let job: Job? = state.withLock { state in
                guard state.head < state.queue.count else { return nil }
                let job = state.queue[state.head]
                state.head += 1
                if state.head > 64 && state.head * 2 > state.queue.count {
                    state.queue.removeFirst(state.head)
                    state.head = 0
                }
                state.running += 1
                return job
            }
            guard let job else {
                // Woken with nothing queued: the pool is closing.
                stopped.signal()
                return
            }
            if !job.isDone() { job.work() }
            state.withLock { $0.running -= 1 }
        }
    }

    /// Lets queued jobs finish, then stops the threads (jobs submitted afterwards are refused).
    public func shutdown() {
        let alreadyClosed = state.withLock { state in
            defer { state.closed = true }
            return state.closed
        }
        if alreadyClosed { return }
        for _ in 0..<threads { signal.signal() }
        // Each thread takes queued jobs first, then finds the queue empty once and stops.
        for _ in 0..<threads { stopped.wait() }
    }
}
