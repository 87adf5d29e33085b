import CSeerShims
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import Seer
import Synchronization

/// How the service runs: where it listens and the limits that protect the machine.
public struct ServiceConfiguration: Sendable {
    /// The address to listen on.
    public var host = "127.0.0.1"
    /// The port (0 picks a free one).
    public var port = 8080
    /// Threads reading photos (default: the cores).
    public var workers = ProcessInfo.processInfo.activeProcessorCount
    /// Photos that may wait for a worker; one more is answered 503 with `Retry-After`.
    /// Default: 16 per worker.
    public var queueLimit: Int?
    /// The largest request body, in bytes, enforced while it is read. Default 20 MiB.
    public var maxBodyBytes = 20 << 20
    /// Time budget of one request's work (waiting for a worker included). Default 30 s.
    public var timeBudget: Duration = .seconds(30)
    /// How long a photo that finds the queue full waits for room, its body not yet read, before it is
    /// answered 503 with `Retry-After`. Default 1 s, the `Retry-After` it would be given.
    public var admissionWait: Duration = .seconds(1)
    /// Photos that may wait for room at once, their bodies not yet read; one more is answered 503 at
    /// once. Default: 128 per worker, and never fewer than the queue limit.
    ///
    /// A waiting photo costs little (a suspended request, and what its connection has buffered of its
    /// body: NIO stops reading it after a few reads), and it waits at most ``admissionWait``. So a
    /// crowd of clients that retry at once when refused waits its turn, each retrying at most once per
    /// wait, instead of being refused and resending its upload as fast as the loopback carries it.
    public var admissionLimit: Int?

    /// Whether each recognition worker is kept on a CPU of its own. Default ``WorkerPinning/auto``.
    public var pinWorkers: WorkerPinning = .auto

    /// Whether recognition workers are kept on CPUs of their own.
    public enum WorkerPinning: String, Sendable, CaseIterable {
        /// When there is one worker per CPU the process may use (the default sizing), and more than
        /// one: worker `i` on the `i`-th of those CPUs.
        case auto
        /// Always: worker `i` on the `i`-th CPU the process may use, in turn when there are fewer.
        case yes
        /// Never: the system places them.
        case no
    }

    /// How long the CPUs the workers use keep polling after the last photo finishes, instead of
    /// halting (``BusyPoll``); zero turns polling off. Default 1 ms.
    ///
    /// While photos flow, a CPU that halts between two of them must be woken for the next, and on a
    /// virtual machine it then often finds its caches cold; with polling, at one client a small photo
    /// is answered about a fifth sooner. The pollers run only when their CPU has nothing else to run,
    /// so they take no time from any work; the time they spend is time the CPU would have halted. Turn
    /// it off (`seer serve --busy-poll 0`) where idle CPU time is billed or shared.
    public var busyPoll: Duration = .milliseconds(1)

    /// The CPUs polled while photos flow, given the CPUs the process may run on: the workers' CPUs
    /// when they are pinned, else the first `workers + 1` of `allowed` (the workers' and an event
    /// loop's).
    public func polledCPUs(allowed: [Int]) -> [Int] {
        let pinned = workerCPUs(allowed: allowed)
        if !pinned.isEmpty { return Array(Set(pinned)).sorted() }
        return Array(allowed.prefix(max(1, workers) + 1))
    }

    /// The defaults.
    public init() {}

    /// The CPU of each worker (worker `i` on the `i`-th, in turn), given the CPUs the process may run
    /// on; empty when the workers are not pinned.
    ///
    /// A worker kept on one CPU keeps its caches and is never moved while it reads a photo; with one
    /// worker per CPU, no two workers share one while another idles. On a machine where other busy
    /// processes share the same CPUs, the system can no longer move a worker away from them: set
    /// ``WorkerPinning/no`` there (`seer serve --pin-workers no`).
    public func workerCPUs(allowed: [Int]) -> [Int] {
        switch pinWorkers {
        case .no: return []
        case .yes: return allowed
        case .auto: return allowed.count == workers && workers > 1 ? allowed : []
        }
    }

    /// The CPUs the calling thread may run on (its affinity), ascending; empty when unknown. From a
    /// thread that is not pinned (the main thread, say), the CPUs the process may run on.
    public static func allowedCPUs() -> [Int] {
        var cpus = [Int32](repeating: 0, count: 1024)
        let count = Int(seer_allowed_cpus(&cpus, Int32(cpus.count)))
        return cpus.prefix(count).map(Int.init)
    }

    /// The queue limit in force.
    public var effectiveQueueLimit: Int { queueLimit ?? 16 * max(1, workers) }

    /// The admission limit in force.
    public var effectiveAdmissionLimit: Int { admissionLimit ?? max(effectiveQueueLimit, 128 * max(1, workers)) }
}

/// The caller, once its key is checked.
public struct Caller: Sendable {
    /// The key's record.
    public var key: APIKeyInfo
    /// Its role.
    public var role: Role { key.role }
}

/// One route: its method, its path as the OpenAPI document writes it, who may call it.
public struct RouteSpec: Sendable, Hashable {
    /// `GET`, `POST`, …
    public var method: String
    /// `/v1/scans/{id}`.
    public var path: String
    /// Roles allowed; empty for routes that need no key (`/health`, `/metrics`, `/openapi.json`).
    public var roles: Set<Role>
}

/// The HTTP service over one ``Engine``: routes, auth, limits, metrics.
public final class SeerService: Sendable {
    /// The engine every request goes through.
    public let engine: Engine
    /// The API keys.
    public let keys: APIKeyStore
    /// The limits.
    public let configuration: ServiceConfiguration
    /// Recognition (decode, read, verify, save), sized to the cores, behind a bounded queue.
    public let recognition: WorkerPool
    /// Store work (history, messages, imports, keys): blocking store calls, off the event loops.
    public let storeWork: WorkerPool
    /// Keeps the CPUs from halting while photos flow (``ServiceConfiguration/busyPoll``); nil when off.
    public let busyPoll: BusyPoll?
    /// Counters for `/metrics`.
    public let metrics = ServiceMetrics()
    /// Whether each open connection's client is still there.
    public let connections = Connections()
    let logger: Logger

    /// Creates the service; the keys should be kept in the engine's store (`APIKeyStore(storage:)` over
    /// it), so that every replica on one database knows the same keys.
    public init(engine: Engine, keys: APIKeyStore, configuration: ServiceConfiguration = ServiceConfiguration(), logger: Logger) {
        self.engine = engine
        self.keys = keys
        self.configuration = configuration
        self.logger = logger
        let allowed = ServiceConfiguration.allowedCPUs()
        let workerCPUs = configuration.workerCPUs(allowed: allowed)
        let polled = configuration.busyPoll > .zero ? configuration.polledCPUs(allowed: allowed) : []
        busyPoll = polled.isEmpty ? nil : BusyPoll(name: "seer-poll", cpus: polled, linger: configuration.busyPoll)
        recognition = WorkerPool(
            name: "seer-read", threads: configuration.workers, queueLimit: configuration.effectiveQueueLimit,
            waitLimit: configuration.effectiveAdmissionLimit, cpus: workerCPUs, busyPoll: busyPoll)
        storeWork = WorkerPool(name: "seer-store", threads: 2, queueLimit: 256 * max(1, configuration.workers))
    }

    /// Makes the event loops that serve the connections also run Swift's tasks (the request handlers),
    /// in place of Swift's own thread pool, so that a request is not handed from one thread to another
    /// between reading its body, its handler and writing its answer. Call once, from the main thread,
    /// before any task starts, in a process that runs nothing but the service (a blocking call in a
    /// task would hold up the connections of its event loop): the `seer serve` command.
    /// - Returns: whether the event loops took over.
    @discardableResult
    public static func runTasksOnEventLoops() -> Bool {
        let routed =
            seer_route_global_jobs { job in
                guard let job else { return }
                // The loop this thread runs, if it runs one (no hop); else the next. The job runs as
                // the global executor runs it, isolated to no actor: were it run as isolated to the
                // loop (`EventLoop.enqueue(_:)`), every call into or return from a nonisolated async
                // function would be a hop, and each hop a job enqueued on the loop again.
                let loop = MultiThreadedEventLoopGroup.singleton.any()
                let address = UInt(bitPattern: job)
                loop.execute { seer_run_global_job(UnsafeMutableRawPointer(bitPattern: address)) }
            } == 1
        if routed { tasksOnEventLoops.store(true, ordering: .releasing) }
        return routed
    }

    /// Makes the threads of `group`'s event loops give way to the workers (Linux's SCHED_BATCH): a loop
    /// that wakes for a request's bytes or a worker's answer while every core is busy does not
    /// interrupt a worker in the middle of a photo; it runs at the core's next scheduler tick (4 ms at
    /// most on a 250 Hz kernel), or as soon as a core is free. Its share of the CPU is unchanged, and
    /// on an idle core it runs at once. Under full load this saves each photo about a third of its
    /// worker's context switches, and the caches each switch costs. Call once, before the service
    /// starts, in a process that runs the service: `seer serve` does, unless told otherwise.
    /// - Returns: whether every loop took the policy.
    @discardableResult
    public static func eventLoopsGiveWayToWorkers(_ group: MultiThreadedEventLoopGroup = .singleton) -> Bool {
        var all = true
        for loop in group.makeIterator() {
            let set = (try? loop.submit { seer_thread_batch_scheduling() == 1 }.wait()) ?? false
            all = all && set
        }
        return all
    }

    /// Whether ``runTasksOnEventLoops()`` took over.
    static let tasksOnEventLoops = Atomic(false)

    /// How a request waiting for a worker is resumed: on its connection's event loop when the event
    /// loops run the tasks (a task resumed there runs there, and writes its answer without a hop to
    /// another loop); else as the runtime schedules it.
    static func resumer(_ context: SeerRequestContext) -> WorkerPool.Resumer? {
        guard tasksOnEventLoops.load(ordering: .acquiring) else { return nil }
        let loop = context.eventLoop
        return { resume in loop.execute(resume) }
    }

    /// Stops the worker threads after the queued jobs.
    public func shutdown() {
        recognition.shutdown()
        storeWork.shutdown()
        busyPoll?.stop()
    }

    /// The routes, as registered; the OpenAPI document lists exactly these.
    public static var routes: [RouteSpec] { Routes.table.map(\.spec) }

    /// The router with every route and the middleware that answers errors, logs and counts.
    public func router() -> Router<SeerRequestContext> {
        let router = Router(context: SeerRequestContext.self)
        router.add(middleware: ServiceMiddleware(service: self))
        for route in Routes.table {
            let spec = route.spec
            let handler = route.handler
            router.on(RouterPath(spec.path), method: HTTPRequest.Method(spec.method)!) { request, context -> Response in
                var context = context
                if !spec.roles.isEmpty {
                    let caller = try await self.authenticate(request)
                    context.caller = caller
                    guard spec.roles.contains(caller.role) else {
                        throw APIError(
                            .forbidden, "forbidden",
                            "This route is for \(spec.roles.map(\.rawValue).sorted().joined(separator: " or ")) keys; this key is a \(caller.role.rawValue) key.")
                    }
                }
                return try await handler(self, request, context)
            }
        }
        WebApp.register(on: router)
        return router
    }

    /// The application: listens where configured, shuts down gracefully on SIGINT and SIGTERM.
    public func application(onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }) -> some ApplicationProtocol {
        let connections = self.connections
        return Application(
            router: router(),
            server: .http1(configuration: .init(additionalChannelHandlers: [connections.watcher()])),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "seer"),
            onServerRunning: onServerRunning,
            logger: logger)
    }

    func authenticate(_ request: Request) async throws -> Caller {
        guard let header = request.headers[.authorization] else {
            throw APIError(.unauthorized, "unauthorized", "This route needs an API key: send 'Authorization: Bearer <key>'.")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw APIError(.unauthorized, "unauthorized", "The Authorization header must be 'Bearer <key>'.")
        }
        let key = parts[1].trimmingSpaces()
        let keys = self.keys
        if let info = keys.remembered(key) { return Caller(key: info) }
        guard let info = try await storeWork.run(budget: configuration.timeBudget, { try keys.authenticate(key) }) else {
            throw APIError(.unauthorized, "unauthorized", "The API key is not known or was revoked.")
        }
        return Caller(key: info)
    }

    /// Runs store work off the event loops.
    func store<T: Sendable>(_ work: @escaping @Sendable (Engine, any SeerStore) throws -> T) async throws -> T {
        let engine = self.engine
        return try await storeWork.run(budget: configuration.timeBudget) { try work(engine, try engine.store()) }
    }
}

/// The request context: Hummingbird's, plus the caller once its key is checked.
public struct SeerRequestContext: RequestContext {
    /// Hummingbird's storage.
    public var coreContext: CoreRequestContextStorage
    /// The caller, on routes that need a key.
    public var caller: Caller?
    /// The event loop of the request's connection.
    public var eventLoop: any EventLoop
    /// The request's connection (for ``Connections/presence(of:)``).
    public var connection: ObjectIdentifier

    /// A context for a new request.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        caller = nil
        eventLoop = source.channel.eventLoop
        connection = ObjectIdentifier(source.channel)
    }
}

/// Answers every error as `{"error":{"code","message"}}`, logs one line per request (never a body,
/// a key or an email) and counts it.
struct ServiceMiddleware: RouterMiddleware {
    let service: SeerService

    func handle(_ request: Request, context: SeerRequestContext, next: (Request, SeerRequestContext) async throws -> Response) async throws
        -> Response
    {
        let start = ContinuousClock.now
        var response: Response
        var errorCode: String?
        do {
            response = try await next(request, context)
        } catch {
            let apiError = APIError.from(error)
            errorCode = apiError.code
            if apiError.status == .serviceUnavailable || error is WorkerPool.Refusal { service.metrics.refused(apiError.code) }
            response = Self.response(apiError)
        }
        let elapsed = ContinuousClock.now - start
        let seconds = elapsed.seconds
        let route = context.endpointPath ?? "unmatched"
        service.metrics.request(method: request.method.rawValue, route: route, status: response.status.code, seconds: seconds)
        // Built only when the line is logged (swift-log takes the metadata as an autoclosure).
        service.logger.info(
            "request", metadata: Self.metadata(request, route: route, status: response.status.code, seconds: seconds, error: errorCode))
        return response
    }

    static func metadata(_ request: Request, route: String, status: Int, seconds: Double, error: String?) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "method": "\(request.method.rawValue)", "route": "\(route)", "status": "\(status)", "ms": "\((seconds * 1e5).rounded() / 100)",
        ]
        if let error { metadata["error"] = "\(error)" }
        return metadata
    }

    static func response(_ error: APIError) -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let retryAfter = error.retryAfter { headers[.retryAfter] = "\(retryAfter)" }
        if error.status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        return Response(status: error.status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: error.body)))
    }
}

/// JSON responses.
enum Reply {
    static func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
        json(bytes: try JSONBody.encode(value), status: status)
    }

    /// A JSON answer already encoded.
    static func json(bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func text(_ text: String, contentType: String) -> Response {
        Response(status: .ok, headers: [.contentType: contentType], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
