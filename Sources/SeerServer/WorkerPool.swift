import CSeerShims
import Foundation
import Synchronization

/// A fixed set of threads that run blocking work (decoding, recognition, SQLite) off the event
/// loops and off Swift's cooperative pool, behind a bounded queue.
///
/// A job that finds the queue full is refused at once (``Refusal/overloaded``, a 503 with
/// `Retry-After`); a job that is not done within its time budget is answered with
/// ``Refusal/timedOut`` (and, if it had not started, never runs).
///
/// A caller that must do work before it can submit its job (read a photo's body) first takes a
/// ``Reservation`` with ``reserve(waiting:)``: room in the queue held for it, so that it does not read
/// a body only to be refused. When the queue is full, up to ``waitLimit`` callers wait for room in
/// turn, each for a bounded time, before they are refused.
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

    /// A caller waiting for room, resumed exactly once: given room, or refused.
    struct Waiter {
        let id: Int
        let continuation: CheckedContinuation<Void, any Error>
        /// Its deadline in ``deadlines``.
        let timer: Int
        /// How it is resumed (``reserve(waiting:resume:)``).
        let resumer: Resumer?

        func resume(_ result: Result<Void, any Error>) {
            WorkerPool.resume(continuation, with: result, through: resumer)
        }
    }

    struct State {
        var queue: [Job] = []
        var head = 0
        var running = 0
        /// Room held by reservations not yet submitted.
        var reserved = 0
        /// Callers waiting for room, first come first served.
        var waiters: [Waiter] = []
        var nextWaiter = 0
        var closed = false
        /// The threads parked for want of a job, the most recently parked last.
        var idle: [Int] = []
        var waiting: Int { queue.count - head }
    }

    /// Room in the queue held for one job, from ``reserve(waiting:)`` until the job is submitted with
    /// ``run(reservation:budget:_:)``; dropped unused, it gives the room back.
    public final class Reservation: Sendable {
        let pool: WorkerPool
        let held = Mutex(true)

        init(pool: WorkerPool) { self.pool = pool }

        /// Whether the room was still held (it is not any more).
        func take() -> Bool { held.withLock { held in defer { held = false }; return held } }

        deinit { if take() { pool.release() } }
    }

    /// Threads working.
    public let threads: Int
    /// Jobs that may wait for a thread; one more is refused.
    public let queueLimit: Int
    /// Callers of ``reserve(waiting:)`` that may wait for room at once; one more is refused at once.
    public let waitLimit: Int
    let state = Mutex(State())
    /// Each thread's wake-up, signalled when it is handed a job (or the pool closes) while parked.
    let wakes: [DispatchSemaphore]
    let stopped = DispatchSemaphore(value: 0)
    /// The jobs' time budgets and the callers' waits for room.
    let deadlines: Deadlines

    /// The CPU each thread is kept on, in order (thread `i` on `cpus[i % cpus.count]`); empty when the
    /// threads run wherever the system puts them.
    public let cpus: [Int]

    /// Told of each job queued and finished, to keep the CPUs from halting while jobs flow.
    let busyPoll: BusyPoll?

    /// Starts `threads` threads named `name`, each kept on its CPU of `cpus` when some are given;
    /// `busyPoll`, when given, is told of each job queued and finished.
    public init(name: String, threads: Int, queueLimit: Int, waitLimit: Int = 0, cpus: [Int] = [], busyPoll: BusyPoll? = nil) {
        self.threads = max(1, threads)
        self.queueLimit = max(0, queueLimit)
        self.waitLimit = max(0, waitLimit)
        self.cpus = cpus
        self.busyPoll = busyPoll
        wakes = (0..<self.threads).map { _ in DispatchSemaphore(value: 0) }
        deadlines = Deadlines(name: "\(name)-timer")
        for index in 0..<self.threads {
            let cpu = cpus.isEmpty ? nil : cpus[index % cpus.count]
            let thread = Thread { [self] in
                nameCurrentThread("\(name)-\(index)")
                if let cpu { _ = seer_pin_thread(Int32(cpu)) }
                self.loop(index)
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Jobs waiting for a thread (reserved room included).
    public var depth: Int { state.withLock { $0.waiting + $0.reserved } }
    /// Callers waiting for room in the queue.
    public var waitingForRoom: Int { state.withLock { $0.waiters.count } }
    /// Jobs running.
    public var busy: Int { state.withLock { $0.running } }
    /// Whether a job submitted now would be refused as ``Refusal/overloaded``.
    public var isFull: Bool { state.withLock { Self.full($0, threads: threads, queueLimit: queueLimit) } }

    static func full(_ state: State, threads: Int, queueLimit: Int) -> Bool {
        state.waiting + state.reserved >= queueLimit + max(0, threads - state.running)
    }

    /// Holds room in the queue for one job. When the queue is full, waits for room (behind the callers
    /// already waiting) for at most `wait`, and is resumed through `resume` when given (as in
    /// ``run(reservation:budget:resume:_:)``).
    /// - Throws: ``Refusal/overloaded`` when no room came within `wait`, or ``waitLimit`` callers
    ///   already wait; ``Refusal/closed`` when the pool is shut down; ``Refusal/clientGone`` when
    ///   `client` goes while the caller waits (its place is given up at once).
    public func reserve(waiting wait: Duration, resume resumer: Resumer? = nil, client: ClientPresence? = nil) async throws -> Reservation {
        enum Decision {
            case room, refused(Refusal), wait(Int)
        }
        // Room now (the usual case): no suspension.
        let room = state.withLock { state in
            guard !state.closed, state.waiters.isEmpty, !Self.full(state, threads: threads, queueLimit: queueLimit) else { return false }
            state.reserved += 1
            return true
        }
        if room { return Reservation(pool: self) }
        let watch = Mutex<Int?>(nil)
        defer { if let client, let token = watch.withLock({ $0 }) { client.forget(token) } }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let decision: Decision = state.withLock { state in
                if state.closed { return .refused(.closed) }
                if state.waiters.isEmpty && !Self.full(state, threads: threads, queueLimit: queueLimit) {
                    state.reserved += 1
                    return .room
                }
                guard wait > .zero, state.waiters.count < waitLimit else { return .refused(.overloaded) }
                let id = state.nextWaiter
                state.nextWaiter += 1
                let timer = deadlines.add(at: .now + wait) { self.giveUp(waiter: id, because: .overloaded) }
                state.waiters.append(Waiter(id: id, continuation: continuation, timer: timer, resumer: resumer))
                return .wait(id)
            }
            switch decision {
            case .room: continuation.resume()
            case .refused(let refusal): continuation.resume(throwing: refusal)
            case .wait(let id):
                // A client gone while its caller waits gives up its place (at once if already gone).
                if let client { watch.withLock { $0 = client.whenGone { self.giveUp(waiter: id, because: .clientGone) } } }
            }
        }
        return Reservation(pool: self)
    }

    /// Refuses a waiter whose time ran out, or whose client went (if it is still waiting).
    func giveUp(waiter id: Int, because refusal: Refusal) {
        let waiter: Waiter? = state.withLock { state in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        guard let waiter else { return }
        deadlines.remove(waiter.timer)
        waiter.resume(.failure(refusal))
    }

    /// Gives back the room of a reservation dropped unused.
    func release() {
        let granted = state.withLock { state in
            state.reserved -= 1
            return Self.grant(&state, threads: threads, queueLimit: queueLimit)
        }
        admit(granted)
    }

    /// Resumes the waiters given room, their waits over.
    func admit(_ granted: [Waiter]) {
        for waiter in granted {
            deadlines.remove(waiter.timer)
            waiter.resume(.success(()))
        }
    }

    /// Hands room, as it frees, to the callers waiting for it, in turn.
    static func grant(_ state: inout State, threads: Int, queueLimit: Int) -> [Waiter] {
        var granted: [Waiter] = []
        while !state.waiters.isEmpty && !full(state, threads: threads, queueLimit: queueLimit) {
            granted.append(state.waiters.removeFirst())
            state.reserved += 1
        }
        return granted
    }

    /// Runs `work` on a pool thread and returns its result.
    /// - Throws: ``Refusal`` when the queue is full, the budget runs out or the pool is closed; else
    ///   what `work` throws.
    public func run<T: Sendable>(budget: Duration? = nil, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await submit(reservation: nil, budget: budget, work)
    }

    /// Runs `work` on a pool thread in the room `reservation` holds, and returns its result.
    /// - Throws: ``Refusal`` when the budget runs out or the pool is closed (or, if the reservation was
    ///   already used, as ``run(budget:_:)``); else what `work` throws.
    ///
    /// `resume`, when given, runs the caller's resumption (on the thread it chooses): the service
    /// resumes a request on its connection's event loop, which then writes the answer without a hop.
    public func run<T: Sendable>(
        reservation: Reservation, budget: Duration? = nil, resume: Resumer? = nil, _ work: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await submit(reservation: reservation, budget: budget, resume: resume, work)
    }

    /// Runs a caller's resumption: `{ resume in loop.execute(resume) }`.
    public typealias Resumer = @Sendable (_ resume: @escaping @Sendable () -> Void) -> Void

    /// Resumes a caller, through its resumer when it gave one.
    static func resume<T: Sendable>(_ continuation: CheckedContinuation<T, any Error>, with result: Result<T, any Error>, through resumer: Resumer?) {
        if let resumer {
            resumer { continuation.resume(with: result) }
        } else {
            continuation.resume(with: result)
        }
    }

    func submit<T: Sendable>(
        reservation: Reservation?, budget: Duration?, resume resumer: Resumer? = nil, _ work: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let pending = Mutex<CheckedContinuation<T, any Error>?>(continuation)
            let timer = Mutex<Int?>(nil)
            let deadlines = self.deadlines
            @Sendable func finish(_ result: Result<T, any Error>) {
                guard let continuation = pending.withLock({ $0.take() }) else { return }
                if let id = timer.withLock({ $0.take() }) { deadlines.remove(id) }
                Self.resume(continuation, with: result, through: resumer)
            }
            let job = Job(
                work: { finish(Result { try work() }) }, expire: { finish(.failure($0)) },
                isDone: { pending.withLock { $0 == nil } })
            // Counted before it can be taken, so that its end is never counted before its start.
            busyPoll?.jobQueued()
            let (refusal, woken): (Refusal?, Int?) = state.withLock { state in
                let reserved = reservation?.take() ?? false
                if reserved { state.reserved -= 1 }
                if state.closed { return (.closed, nil) }
                // Callers waiting for room go first.
                if !reserved && (!state.waiters.isEmpty || Self.full(state, threads: threads, queueLimit: queueLimit)) { return (.overloaded, nil) }
                state.queue.append(job)
                // The thread parked last: its CPU is the likeliest to be awake, its caches warm.
                return (nil, state.idle.popLast())
            }
            if let refusal {
                busyPoll?.jobFinished()
                finish(.failure(refusal))
                return
            }
            if let woken { wakes[woken].signal() }
            if let budget {
                let id = deadlines.add(at: .now + budget) { job.expire(.timedOut) }
                timer.withLock { $0 = id }
                if job.isDone(), let id = timer.withLock({ $0.take() }) { deadlines.remove(id) }
            }
        }
    }

    enum Next {
        case run(Job), park, stop
    }

    /// Thread `index`: takes the queued jobs in turn; with none, parks until handed one. Parked threads
    /// are handed jobs last parked, first woken, so that at low load the same few threads, on CPUs
    /// that are awake and caches that are warm, take the photos.
    func loop(_ index: Int) {
        while true {
            let next: Next = state.withLock { state in
                guard state.head < state.queue.count else {
                    if state.closed { return .stop }
                    state.idle.append(index)
                    return .park
                }
                let job = state.queue[state.head]
                state.head += 1
                if state.head > 64 && state.head * 2 > state.queue.count {
                    state.queue.removeFirst(state.head)
                    state.head = 0
                }
                state.running += 1
                return .run(job)
            }
            let job: Job
            switch next {
            case .run(let taken): job = taken
            case .park:
                wakes[index].wait()
                continue
            case .stop:
                // The queue is empty and the pool is closing.
                stopped.signal()
                return
            }
            if !job.isDone() { job.work() }
            busyPoll?.jobFinished()
            let granted = state.withLock { state in
                state.running -= 1
                return Self.grant(&state, threads: threads, queueLimit: queueLimit)
            }
            admit(granted)
        }
    }

    /// Lets queued jobs finish, then stops the threads (jobs submitted afterwards, and callers waiting
    /// for room, are refused).
    public func shutdown() {
        let (alreadyClosed, waiters, parked) = state.withLock { state in
            defer {
                state.closed = true
                state.waiters = []
                state.idle = []
            }
            return (state.closed, state.waiters, state.idle)
        }
        for waiter in waiters {
            deadlines.remove(waiter.timer)
            waiter.resume(.failure(Refusal.closed))
        }
        if alreadyClosed { return }
        for index in parked { wakes[index].signal() }
        // Each thread takes queued jobs first, then finds the queue empty once and stops.
        for _ in 0..<threads { stopped.wait() }
        deadlines.stop()
    }
}
