import Foundation
import Hummingbird
import Logging
import NIOCore
import Seer

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
    /// How long a photo that finds the queue full waits for room, its body read, before it is
    /// answered 503 with `Retry-After`. Default 1 s, the `Retry-After` it would be given.
    public var admissionWait: Duration = .seconds(1)
    /// Photos that may wait for room at once, their bodies read; one more is answered 503 at once.
    /// Default: 128 per worker, and never fewer than the queue limit.
    ///
    /// A waiting photo costs a suspended request and its body, and it waits at most
    /// ``admissionWait``. So a crowd of clients that retry at once when refused waits its turn, each
    /// retrying at most once per wait, instead of being refused and resending its upload as fast as
    /// the loopback carries it.
    public var admissionLimit: Int?
    /// The slowest upload accepted, in bytes per second on average once ``uploadGrace`` has passed;
    /// a slower one is answered 400 `uploadTooSlow` and its connection closed. Default 16 KiB/s.
    /// A request holds no room in the queue while its body arrives, and its body must arrive within
    /// the ``timeBudget`` too.
    public var uploadMinimumRate = 16 << 10
    /// How long an upload may take before ``uploadMinimumRate`` applies. Default 2 s.
    public var uploadGrace: Duration = .seconds(2)

    /// The defaults.
    public init() {}

    /// The queue limit in force.
    public var effectiveQueueLimit: Int { queueLimit ?? 16 * max(1, workers) }

    /// The admission limit in force.
    public var effectiveAdmissionLimit: Int { admissionLimit ?? max(effectiveQueueLimit, 128 * max(1, workers)) }
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
        recognition = WorkerPool(
            name: "seer-read", threads: configuration.workers, queueLimit: configuration.effectiveQueueLimit,
            waitLimit: configuration.effectiveAdmissionLimit)
        storeWork = WorkerPool(name: "seer-store", threads: 2, queueLimit: 256 * max(1, configuration.workers))
    }

    /// Stops the worker threads.
    public func shutdown() {
        recognition.shutdown()
        storeWork.shutdown()
    }

    /// The routes, as registered; the OpenAPI document lists exactly these.
    public static var routes: [RouteSpec] { Routes.table.map(\.spec) }

    /// The router with every route and the middleware that answers errors, logs and counts.
    public func router() -> Router<SeerRequestContext> {
        let router = Router(context: SeerRequestContext.self)
        router.add(middleware: ServiceMiddleware(service: self))
        for route in Routes.table {
            let spec = route.spec
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
                if let allowed = route.query { context.query = try request.query(allowed: allowed) }
                return try await route.handler(self, request, context)
            }
        }
        WebApp.register(on: router)
        return router
    }

    func authenticate(_ request: Request) async throws -> APIKeyInfo {
        guard let header = request.headers[.authorization] else {
            throw APIError(.unauthorized, "unauthorized", "This route needs an API key: send 'Authorization: Bearer <key>'.")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw APIError(.unauthorized, "unauthorized", "The Authorization header must be 'Bearer <key>'.")
        }
        let key = parts[1].trimmingSpaces()
        let keys = self.keys
        if let info = keys.remembered(key) { return info }
        guard let info = try await storeWork.run(budget: configuration.timeBudget, { try keys.authenticate(key) }) else {
            throw APIError(.unauthorized, "unauthorized", "The API key is not known or was revoked.")
        }
        return info
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
    /// The caller's key, on routes that need a key.
    public var caller: APIKeyInfo?
    /// The query parameters, checked against those the route takes.
    var query = Query()
    /// The request's connection (for ``Connections/presence(of:)``).
    public var connection: ObjectIdentifier

    /// A context for a new request.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
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
        let seconds = (ContinuousClock.now - start).seconds
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
}
