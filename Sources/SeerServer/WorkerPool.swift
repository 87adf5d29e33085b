import Dispatch
import NIOPosix
import Seer
import Synchronization

/// Blocking work (decoding, recognition, SQLite) run on an ordinary thread pool, off the event loops
/// and off Swift's cooperative pool, behind a bounded admission gate.
///
/// At most `threads + queueLimit` jobs are admitted at once (running or queued). A caller that finds
/// the gate full waits for room, in turn, for at most its `waiting` time, and at most ``waitLimit``
/// callers wait so; then it is refused (``Refusal/overloaded``, a 503 with `Retry-After`). A job not
/// done within its time budget is answered ``Refusal/timedOut``, and its ``Cancellation`` is requested
/// so that recognition stops and the thread frees soon; its room is given back when the thread is done
/// with it.
public final class WorkerPool: Sendable {
    /// Why a job did not run to its end.
    public enum Refusal: Error, Equatable {
        /// The queue was full.
        case overloaded
        /// The time budget ran out (waiting, working, or both).
        case timedOut
        /// The pool is shut down.
        case closed
        /// The caller's client went away before its job started (``ClientPresence``).
        case clientGone
    }

    struct Waiter {
        let id: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    struct State {
        /// Jobs holding room: queued or running.
        var admitted = 0
        var running = 0
        /// Callers waiting for room, first come first served.
        var waiters: [Waiter] = []
        var nextWaiter = 0
        var closed = false
    }

    /// Threads working.
    public let threads: Int
    /// Jobs that may wait for a thread; one more waits for room or is refused.
    public let queueLimit: Int
    /// Callers that may wait for room at once; one more is refused at once.
    public let waitLimit: Int
    let state = Mutex(State())
    let pool: NIOThreadPool

    /// Starts `threads` threads; `name` is kept for the logs.
    public init(name: String, threads: Int, queueLimit: Int, waitLimit: Int = 0) {
        self.threads = max(1, threads)
        self.queueLimit = max(0, queueLimit)
        self.waitLimit = max(0, waitLimit)
        pool = NIOThreadPool(numberOfThreads: self.threads)
        pool.start()
    }

    /// Jobs waiting for a thread.
    public var depth: Int { state.withLock { $0.admitted - $0.running } }
    /// Callers waiting for room in the queue.
    public var waitingForRoom: Int { state.withLock { $0.waiters.count } }
    /// Jobs running.
    public var busy: Int { state.withLock { $0.running } }
    /// Whether a job submitted now would have to wait for room.
    public var isFull: Bool { state.withLock { $0.admitted >= threads + queueLimit } }

    /// Runs `work` on a pool thread and returns its result. When the gate is full, waits for room
    /// (behind the callers already waiting) for at most `waiting`; `budget` counts from the call.
    /// - Throws: ``Refusal`` when no room came in time (or ``waitLimit`` callers already wait), the
    ///   budget runs out, the pool is closed, or `client` goes while the caller waits for room; else
    ///   what `work` throws.
    public func run<T: Sendable>(
        budget: Duration? = nil, waiting: Duration = .zero, client: ClientPresence? = nil, _ work: @escaping @Sendable () throws -> T
    ) async throws -> T {
        let cancellation = Cancellation()
        let pending = Mutex<CheckedContinuation<T, any Error>?>(nil)
        @Sendable func finish(_ result: Result<T, any Error>) {
            pending.withLock { $0.take() }?.resume(with: result)
        }
        // The budget's timer runs on an event loop of NIO's own: threads that blocking work never holds,
        // so a job's time-out comes on time however busy Dispatch's and Swift's pools are.
        let timer = budget.map { budget in
            MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: .nanoseconds(Int64(budget.seconds * 1e9))) {
                cancellation.cancel()
                finish(.failure(Refusal.timedOut))
            }
        }
        defer { timer?.cancel() }
        try await admit(waiting: waiting, client: client)
        return try await withCheckedThrowingContinuation { continuation in
            pending.withLock { $0 = continuation }
            if cancellation.isCancelled {
                release(running: false)
                return finish(.failure(Refusal.timedOut))
            }
            pool.submit { item in
                guard item == .active, !cancellation.isCancelled else {
                    self.release(running: false)
                    return finish(.failure(item == .active ? Refusal.timedOut : Refusal.closed))
                }
                self.state.withLock { $0.running += 1 }
                let result = Result { try Cancellation.$current.withValue(cancellation) { try work() } }
                self.release(running: true)
                finish(result)
            }
        }
    }

    /// Takes room for one job, waiting for it when the gate is full.
    func admit(waiting wait: Duration, client: ClientPresence?) async throws {
        enum Decision {
            case room, refused(Refusal), wait(Int)
        }
        // Room now (the usual case): no suspension.
        if state.withLock({ !$0.closed && take(&$0) }) { return }
        let watch = Mutex<Int?>(nil)
        defer { if let client, let token = watch.withLock({ $0 }) { client.forget(token) } }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let decision: Decision = state.withLock { state in
                if state.closed { return .refused(.closed) }
                if take(&state) { return .room }
                guard wait > .zero, state.waiters.count < waitLimit else { return .refused(.overloaded) }
                let id = state.nextWaiter
                state.nextWaiter += 1
                state.waiters.append(Waiter(id: id, continuation: continuation))
                return .wait(id)
            }
            switch decision {
            case .room: continuation.resume()
            case .refused(let refusal): continuation.resume(throwing: refusal)
            case .wait(let id):
                MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: .nanoseconds(Int64(wait.seconds * 1e9))) {
                    self.giveUp(waiter: id, because: .overloaded)
                }
                // A client gone while its caller waits gives up its place (at once if already gone).
                if let client { watch.withLock { $0 = client.whenGone { self.giveUp(waiter: id, because: .clientGone) } } }
            }
        }
    }

    /// Takes room for a job, when there is room and no caller waits for it first.
    func take(_ state: inout State) -> Bool {
        guard state.waiters.isEmpty, state.admitted < threads + queueLimit else { return false }
        state.admitted += 1
        return true
    }

    /// Refuses a waiter whose time ran out, or whose client went (if it is still waiting).
    func giveUp(waiter id: Int, because refusal: Refusal) {
        let waiter: Waiter? = state.withLock { state in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.continuation.resume(throwing: refusal)
    }

    /// Gives back a job's room, and hands it to the first caller waiting.
    func release(running: Bool) {
        let granted: Waiter? = state.withLock { state in
            state.admitted -= 1
            if running { state.running -= 1 }
            guard !state.waiters.isEmpty, state.admitted < threads + queueLimit else { return nil }
            state.admitted += 1
            return state.waiters.removeFirst()
        }
        granted?.continuation.resume()
    }

    /// Stops the threads after the jobs running; jobs not yet started, jobs submitted afterwards and
    /// callers waiting for room are refused (``Refusal/closed``).
    public func shutdown() {
        let waiters = state.withLock { state in
            defer {
                state.closed = true
                state.waiters = []
            }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume(throwing: Refusal.closed) }
        try? pool.syncShutdownGracefully()
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
