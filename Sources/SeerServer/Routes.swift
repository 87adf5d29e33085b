import Foundation
import Hummingbird
import NIOCore
import Seer

/// Every route of the service: its spec (method, path, roles), the query parameters it takes and
/// its handler. The OpenAPI document (`openapi.json`) lists exactly these; a test checks both ways.
enum Routes {
    typealias Handler = @Sendable (SeerService, Request, SeerRequestContext) async throws -> Response

    struct Route: Sendable {
        var spec: RouteSpec
        /// The query parameters it takes (any other is refused); nil for a route that reads none.
        var query: Set<String>?
        var handler: Handler
    }

    static func route(_ method: String, _ path: String, _ roles: Set<Role>, query: Set<String>? = [], _ handler: @escaping Handler) -> Route {
        Route(spec: RouteSpec(method: method, path: path, roles: roles), query: query, handler: handler)
    }

    static let scanners: Set<Role> = [.device, .admin]
    static let owners: Set<Role> = [.user, .admin]
    static let anyKey: Set<Role> = [.device, .user, .admin]

    static let table: [Route] = [
        route("GET", "/health", [], query: nil) { _, _, _ in try Reply.json(["status": "ok"]) },
        route("GET", "/metrics", [], query: nil) { service, _, _ in
            let text = service.metrics.render(pool: service.recognition)
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"], body: .init(byteBuffer: ByteBuffer(string: text)))
        },
        route("GET", "/openapi.json", [], query: nil) { _, _, _ in Reply.json(bytes: OpenAPIDocument.bytes) },
        route("POST", "/v1/scans", scanners, query: ["read", "mode", "device", "lat", "lon", "region", "timing"], postScan),
        route("POST", "/v1/verify", scanners, query: ["device", "lat", "lon"], postVerify),
        route("GET", "/v1/scans", scanners, query: historyParameters.union(["page", "limit"]), getScans),
        route("GET", "/v1/scans/{id}", scanners) { service, _, context in
            let id = try scanID(context)
            let caller = context.caller
            return try Reply.json(try await service.store { engine, store in try visibleScan(id, caller: caller, engine: engine, store: store) })
        },
        route("POST", "/v1/scans/{id}/report", scanners, postReport),
        route("GET", "/v1/stats", scanners, query: historyParameters) { service, _, context in
            let history = try historyQuery(context.query, caller: context.caller)
            return try Reply.json(try await service.store { engine, store in try engine.statistics(history, store: store) })
        },
        route("GET", "/v1/searches/recent", scanners) { service, _, _ in
            try Reply.json(["searches": try await service.store { _, store in try store.recentSearches(limit: 20) }])
        },
        route("GET", "/v1/suggest", scanners, query: ["q"]) { service, _, context in
            guard let prefix = context.query["q"], !prefix.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw APIError.badRequest("missingParameter", "Give the text typed so far as 'q'.")
            }
            guard prefix.count <= service.engine.configuration.limits.searchCharacters else {
                throw APIError(.contentTooLarge, "tooLarge", "'q' has at most \(service.engine.configuration.limits.searchCharacters) characters.")
            }
            return try Reply.json(["suggestions": try await service.store { _, store in try store.suggestions(prefix: prefix, limit: 10) }])
        },
        route("POST", "/v1/plates/resolve", owners) { service, request, _ in
            let object = try await request.jsonObject(allowed: ["plate", "country"], limit: 4096)
            let plate = try object.string("plate", required: true)!
            let country = try country(in: object)
            return try Reply.json(try await service.store { engine, store in try engine.resolvePlate(plate, country: country, store: store) })
        },
        route("POST", "/v1/plates/{plate}/messages", owners, postMessage),
        route("GET", "/v1/inbox", [.user]) { service, _, context in
            guard let recipient = context.caller?.recipient else {
                throw APIError(
                    .forbidden, "noRecipient",
                    "This key acts for no plate owner yet: register with POST /v1/users using this key, or make a key with --recipient.")
            }
            return try Reply.json(["messages": try await service.store { _, store in try store.inbox(recipient: recipient) }])
        },
        route("POST", "/v1/users", owners, postUser),
        route("GET", "/v1/chargers/{id}", anyKey) { service, _, context in
            let id = context.parameters.get("id") ?? ""
            return try Reply.json(try await service.store { engine, store in try engine.resolveCharger(typed: id, store: store) })
        },
        route("PUT", "/v1/registry", [.admin]) { service, request, _ in
            guard request.mediaType == "application/json" else {
                throw APIError(.unsupportedMediaType, "unsupportedMediaType", "Send the registry as application/json (the format of seer registry import).")
            }
            let bytes = try await request.bytes(limit: service.configuration.maxBodyBytes)
            return try Reply.json(try await service.store { _, store in try store.importRegistry([(name: "request", data: Data(bytes))]) })
        },
        route("POST", "/v1/apikeys", [.admin], postKey),
        route("GET", "/v1/apikeys", [.admin]) { service, _, _ in
            let keys = service.keys
            return try Reply.json(["keys": try await service.storeWork.run { try keys.list() }])
        },
        route("DELETE", "/v1/apikeys/{id}", [.admin]) { service, _, context in
            let id = context.parameters.get("id") ?? ""
            let keys = service.keys
            return try Reply.json(try await service.storeWork.run { try keys.revoke(id: id) })
        },
    ]

    // MARK: Scans

    static let imageTypes: Set<String> = ["image/jpeg", "image/png", "image/heic", "image/heif", "image/webp"]

    /// Who and where a request scans as: a device key scans as its own device; an admin may name one.
    static func scanContext(_ query: Query, caller: APIKeyInfo?) throws -> ScanContext {
        var device = query["device"]
        if let caller, caller.role == .device {
            if let asked = device, asked != caller.device {
                throw APIError(.forbidden, "forbidden", "A device key scans as its own device ('\(caller.device)'), not '\(asked)'.")
            }
            device = caller.device
        }
        return ScanContext(device: device, latitude: try query.double("lat", range: -90...90), longitude: try query.double("lon", range: -180...180))
    }

    static func postScan(_ service: SeerService, _ request: Request, _ context: SeerRequestContext) async throws -> Response {
        let start = ContinuousClock.now
        let client = service.connections.presence(of: context.connection)
        let query = context.query
        let timing = try query.value("timing", "takes true or false", Bool.init) ?? false
        let targets = try query.value("read", "takes \(ScanTargets.vocabulary)", ScanTargets.init(parsing:)) ?? .codes
        let mode = try query.choice("mode", as: ScanMode.self, names: ["single", "batch"]) ?? .single
        let region: PlateRegion? = try query.value("region", "takes us, eu, br or auto", PlateRegion.parse) ?? nil
        let scanContext = try scanContext(query, caller: context.caller)
        guard let type = request.mediaType, imageTypes.contains(type) || type == "multipart/form-data" else {
            let sent = request.mediaType.map { "The body is \($0); send" } ?? "Send"
            throw APIError(
                .unsupportedMediaType, "unsupportedMediaType",
                "\(sent) the photo as image/jpeg, image/png, image/heic or image/webp, or as multipart/form-data.")
        }
        // The photo is read first, under a time limit and a minimum rate; only a photo that has arrived
        // takes room in the queue (waiting for it when the queue is full, for at most `admissionWait`).
        let configuration = service.configuration
        let body = try await request.upload(
            limit: configuration.maxBodyBytes, by: start + configuration.timeBudget, minimumRate: configuration.uploadMinimumRate,
            grace: configuration.uploadGrace, client: client)
        if body.isEmpty && request.headers[.contentLength] == nil {
            // An HTTP/1.0 body without a length cannot be told from the next request: end the connection.
            client?.endAfterAnswer()
            throw APIError.badRequest("lengthRequired", "The photo came without a Content-Length, so none of it was read: send its length.")
        }
        let part =
            type == "multipart/form-data"
            ? try MultipartFile.photo(in: body, contentType: request.headers[.contentType] ?? "") : MultipartFile(bytes: body)
        if part.bytes.isEmpty { throw APIError.badRequest("empty", "The photo is empty (0 bytes).") }
        let file = part.filename.flatMap { $0.isEmpty ? nil : ($0 as NSString).lastPathComponent } ?? "upload"
        let scanRequest = ScanRequest(targets: targets, region: region, context: scanContext, mode: mode, save: true)
        let engine = service.engine
        let metrics = service.metrics
        // The time budget counts from the request's start: waiting for room included.
        let budget = configuration.timeBudget - (ContinuousClock.now - start)
        guard budget > .zero else { throw WorkerPool.Refusal.timedOut }
        // The worker also writes the answer's JSON, so that the event loop only sends it.
        let answer = try await service.recognition.run(budget: budget, waiting: configuration.admissionWait, client: client) {
            if client?.isGone == true { throw WorkerPool.Refusal.clientGone }
            var report: ScanReport
            do {
                report = try engine.scan(part.bytes, file: file, scanRequest, store: try engine.store())
                metrics.recognition("ok")
            } catch {
                metrics.recognition(FileFailure(file: "", error: error).error.code)
                throw error
            }
            if !timing { report.removeTimings() }
            return try JSONBody.encode(report)
        }
        return Reply.json(bytes: answer)
    }

    static func postVerify(_ service: SeerService, _ request: Request, _ context: SeerRequestContext) async throws -> Response {
        let scanContext = try scanContext(context.query, caller: context.caller)
        let limit = service.engine.configuration.limits.payloadBytes
        let payload: String
        switch request.mediaType {
        case "text/plain":
            let bytes = try await request.bytes(limit: limit + 2)
            guard var text = String(validating: bytes, as: UTF8.self) else {
                throw APIError.badRequest("invalidText", "The payload is not UTF-8 text.")
            }
            if text.hasSuffix("\r\n") { text.removeLast(1) } else if text.hasSuffix("\n") { text.removeLast() }
            payload = text
        case "application/json":
            let object = try await request.jsonObject(allowed: ["payload"], limit: limit * 2 + 64)
            payload = try object.string("payload", required: true)!
        default:
            throw APIError(.unsupportedMediaType, "unsupportedMediaType", "Send the payload as text/plain, or as application/json {\"payload\": …}.")
        }
        return try Reply.json(try await service.store { engine, store in try engine.verify(payload: payload, context: scanContext, store: store) })
    }

    static let historyParameters: Set<String> = ["result", "category", "period", "search"]

    static func historyQuery(_ query: Query, caller: APIKeyInfo?, limit: Int = 50, offset: Int = 0) throws -> HistoryQuery {
        var history = HistoryQuery(
            result: try query.choice("result", as: ResultFilter.self, names: ["all", "success", "failed"]) ?? .all,
            category: query["category"],
            period: try query.choice("period", as: Period.self, names: ["day", "week", "month", "all"]),
            search: query["search"], limit: limit, offset: offset)
        if caller?.role == .device { history.device = caller?.device }
        return history
    }

    static func getScans(_ service: SeerService, _ request: Request, _ context: SeerRequestContext) async throws -> Response {
        let query = context.query
        let limit = try query.int("limit", range: 1...service.engine.configuration.limits.pageSize) ?? 50
        let page = try query.int("page", range: 1...1_000_000) ?? 1
        let history = try historyQuery(query, caller: context.caller, limit: limit, offset: (page - 1) * limit)
        let result = try await service.store { engine, store in
            try engine.check(history)
            if let search = history.search, !search.trimmingCharacters(in: .whitespaces).isEmpty { try store.rememberSearch(search) }
            return try engine.history(history, store: store)
        }
        return try Reply.json(result)
    }

    static func scanID(_ context: SeerRequestContext) throws -> Int64 {
        let text = context.parameters.get("id") ?? ""
        guard let id = Int64(text), id > 0 else { throw APIError.badRequest("invalidParameter", "A scan id is a positive whole number; '\(text)' is not.") }
        return id
    }

    /// A scan the caller may see: a device key sees its own device's scans only (others are `notFound`).
    static func visibleScan(_ id: Int64, caller: APIKeyInfo?, engine: Engine, store: any SeerStore) throws -> ScanDetails {
        let details = try engine.scanDetails(id: id, store: store)
        if caller?.role == .device, details.scan.device != caller?.device {
            throw StoreError(code: "notFound", message: "There is no scan #\(id).")
        }
        return details
    }

    static func postReport(_ service: SeerService, _ request: Request, _ context: SeerRequestContext) async throws -> Response {
        let id = try scanID(context)
        let object = try await request.jsonObject(allowed: ["reason"], limit: 64 << 10, required: false)
        let reason = try object.string("reason")
        let caller = context.caller
        let report = try await service.store { engine, store in
            _ = try visibleScan(id, caller: caller, engine: engine, store: store)
            return try engine.reportCounterfeit(scanID: id, reason: reason, at: Date().timeIntervalSince1970, store: store)
        }
        return try Reply.json(report, status: .created)
    }

    // MARK: Plates and owners

    /// The object's `country` field, an ISO 3166 code.
    static func country(in object: [String: Any], required: Bool = false) throws -> Country? {
        guard let text = try object.string("country", required: required) else { return nil }
        do {
            return try Country.parse(text)
        } catch {
            throw APIError(.unprocessableContent, "invalidCountry", error.message)
        }
    }

    static func postMessage(_ service: SeerService, _ request: Request, _ context: SeerRequestContext) async throws -> Response {
        let plate = context.parameters.get("plate") ?? ""
        let decoded = plate.removingPercentEncoding ?? plate
        let object = try await request.jsonObject(allowed: ["preset", "text", "country"], limit: 16 << 10)
        let preset = try object.string("preset")
        let text = try object.string("text")
        let country = try country(in: object)
        let receipt = try await service.store { engine, store in
            try engine.sendPlateMessage(to: decoded, country: country, preset: preset, text: text, at: Date().timeIntervalSince1970, store: store)
        }
        return try Reply.json(receipt, status: .created)
    }

    static func postUser(_ service: SeerService, _ request: Request, _ context: SeerRequestContext) async throws -> Response {
        let object = try await request.jsonObject(allowed: ["name", "email", "plate", "country"], limit: 16 << 10)
        let name = try object.string("name", required: true)!
        let email = try object.string("email", required: true)!
        let plate = try object.string("plate", required: true)!
        let country = try country(in: object, required: true)!
        let caller = context.caller
        if caller?.role == .user, caller?.recipient != nil {
            throw APIError(.conflict, "alreadyRegistered", "This key already acts for a plate owner; a key registers one owner.")
        }
        let keys = service.keys
        let receipt = try await service.store { engine, store in
            let receipt = try engine.addUser(name: name, email: email, plate: plate, country: country, store: store)
            if let caller, caller.role == .user { try keys.bind(id: caller.id, recipient: receipt.recipient) }
            return receipt
        }
        return try Reply.json(receipt, status: .created)
    }

    // MARK: Administration

    static func postKey(_ service: SeerService, _ request: Request, _ context: SeerRequestContext) async throws -> Response {
        let object = try await request.jsonObject(allowed: ["role", "name", "recipient"], limit: 4096)
        let roleText = try object.string("role", required: true)!
        guard let role = Role(rawValue: roleText) else {
            throw APIError.badRequest("invalidField", "'role' is device, user or admin; it is '\(roleText)'.")
        }
        let name = try object.string("name")
        let recipient = try object.string("recipient")
        let keys = service.keys
        let made = try await service.storeWork.run { try keys.create(role: role, name: name, recipient: recipient) }
        return try Reply.json(NewKey(key: made.key, info: made.info), status: .created)
    }

    /// A new key as the API returns it: the key (shown once) and its record.
    struct NewKey: Encodable {
        var key: String
        var info: APIKeyInfo
    }
}

/// The committed OpenAPI 3.1 document, served at `/openapi.json`.
public enum OpenAPIDocument {
    /// Its bytes.
    public static var bytes: [UInt8] { PackageResources.openapi_json }
}
