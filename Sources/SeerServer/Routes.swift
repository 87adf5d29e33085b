import Foundation
import Hummingbird
import NIOCore
import Seer

/// Every route of the service: its spec (method, path, roles) and its handler. The OpenAPI document
/// (`openapi.json`) lists exactly these; a test checks both ways.
enum Routes {
    typealias Handler = @Sendable (SeerService, Request, SeerRequestContext) async throws -> Response

    struct Route: Sendable {
        var spec: RouteSpec
        var handler: Handler
    }

    static func route(_ method: String, _ path: String, _ roles: Set<Role>, _ handler: @escaping Handler) -> Route {
        Route(spec: RouteSpec(method: method, path: path, roles: roles), handler: handler)
    }

    static let scanners: Set<Role> = [.device, .admin]
    static let owners: Set<Role> = [.user, .admin]
    static let anyKey: Set<Role> = [.device, .user, .admin]

    static let table: [Route] = [
        route("GET", "/health", []) { _, _, _ in try Reply.json(["status": "ok"]) },
        route("GET", "/metrics", []) { service, _, _ in
            Reply.text(service.metrics.render(pool: service.recognition), contentType: "text/plain; version=0.0.4")
        },
        route("GET", "/openapi.json", []) { _, _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: OpenAPIDocument.bytes)))
        },
        route("POST", "/v1/scans", scanners, postScan),
        route("POST", "/v1/verify", scanners, postVerify),
        route("GET", "/v1/scans", scanners, getScans),
        route("GET", "/v1/scans/{id}", scanners, getScan),
        route("POST", "/v1/scans/{id}/report", scanners, postReport),
        route("GET", "/v1/stats", scanners, getStats),
        route("GET", "/v1/searches/recent", scanners) { service, request, _ in
            _ = try request.query(allowed: [])
            return try Reply.json(["searches": try await service.store { _, store in try store.recentSearches(limit: 20) }])
        },
        route("GET", "/v1/suggest", scanners) { service, request, _ in
            let query = try request.query(allowed: ["q"])
            guard let prefix = query["q"], !prefix.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw APIError.badRequest("missingParameter", "Give the text typed so far as 'q'.")
            }
            guard prefix.count <= service.engine.configuration.limits.searchCharacters else {
                throw APIError(.contentTooLarge, "tooLarge", "'q' has at most \(service.engine.configuration.limits.searchCharacters) characters.")
            }
            return try Reply.json(["suggestions": try await service.store { _, store in try store.suggestions(prefix: prefix, limit: 10) }])
        },
        route("POST", "/v1/plates/resolve", owners, postResolve),
        route("POST", "/v1/plates/{plate}/messages", owners, postMessage),
        route("GET", "/v1/inbox", [.user], getInbox),
        route("POST", "/v1/users", owners, postUser),
        route("GET", "/v1/chargers/{id}", anyKey) { service, request, context in
            _ = try request.query(allowed: [])
            let id = context.parameters.get("id") ?? ""
            return try Reply.json(try await service.store { engine, store in try engine.resolveCharger(typed: id, store: store) })
        },
        route("PUT", "/v1/registry", [.admin], putRegistry),
        route("POST", "/v1/apikeys", [.admin], postKey),
        route("GET", "/v1/apikeys", [.admin]) { service, request, _ in
            _ = try request.query(allowed: [])
            let keys = service.keys
            return try Reply.json(["keys": try await service.storeWork.run { try keys.list() }])
        },
        route("DELETE", "/v1/apikeys/{id}", [.admin]) { service, request, context in
            _ = try request.query(allowed: [])
            let id = context.parameters.get("id") ?? ""
            let keys = service.keys
            return try Reply.json(try await service.storeWork.run { try keys.revoke(id: id) })
        },
    ]

    // MARK: Scans

    static let imageTypes: Set<String> = ["image/jpeg", "image/png", "image/heic", "image/heif", "image/webp"]

    /// The device a request scans as: a device key's own device; an admin may name one.
    static func device(for caller: Caller?, query: [String: String]) throws -> String? {
        guard let caller else { return query["device"] }
        if caller.role == .device {
            if let asked = query["device"], asked != caller.key.device {
                throw APIError(.forbidden, "forbidden", "A device key scans as its own device ('\(caller.key.device)'), not '\(asked)'.")
            }
            return caller.key.device
        }
        return query["device"]
    }

    static func postScan(_ service: SeerService, _ request: Request, _ context: SeerRequestContext) async throws -> Response {
        let start = ContinuousClock.now
        let client = service.connections.presence(of: context.connection)
        let query = try request.query(allowed: ["read", "mode", "device", "lat", "lon", "region", "timing"])
        let timing: Bool
        switch query["timing"] {
        case nil, "false": timing = false
        case "true": timing = true
        case let other?: throw APIError.badRequest("invalidParameter", "'timing' takes true or false; it is '\(other)'.")
        }
        guard let targets = ScanTargets(parsing: query["read"] ?? "codes") else {
            throw APIError.badRequest("invalidParameter", "'read' takes \(ScanTargets.vocabulary); it is '\(query["read"] ?? "")'.")
        }
        let mode = try QueryValue.choice(query, "mode", as: ScanMode.self, names: ["single", "batch"]) ?? .single
        var region: PlateRegion? = nil
        if let text = query["region"] {
            guard let parsed = PlateRegion.parse(text) else {
                throw APIError.badRequest("invalidParameter", "'region' takes us, eu, br or auto; it is '\(text)'.")
            }
            region = parsed
        }
        let context = ScanContext(
            device: try device(for: context.caller, query: query),
            latitude: try QueryValue.double(query, "lat", range: -90...90), longitude: try QueryValue.double(query, "lon", range: -180...180))

        guard let type = request.mediaType else {
            throw APIError(.unsupportedMediaType, "unsupportedMediaType", "Send the photo as image/jpeg, image/png, image/heic or image/webp, or as multipart/form-data.")
        }
        guard imageTypes.contains(type) || type == "multipart/form-data" else {
            throw APIError(
                .unsupportedMediaType, "unsupportedMediaType",
                "The body is \(type); send the photo as image/jpeg, image/png, image/heic or image/webp, or as multipart/form-data.")
        }
        let limit = service.configuration.maxBodyBytes
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limit {
            throw APIError(.contentTooLarge, "tooLarge", "The body is \(declared) bytes; the limit is \(limit).")
        }
        // The photo is read first, under a time limit and a minimum rate; only a photo that has arrived
        // takes room in the queue (waiting for it when the queue is full, for at most `admissionWait`).
        let configuration = service.configuration
        let body = try await request.upload(
            limit: limit, by: start + configuration.timeBudget, minimumRate: configuration.uploadMinimumRate,
            grace: configuration.uploadGrace, client: client)
        if body.isEmpty && request.headers[.contentLength] == nil {
            // An HTTP/1.0 body without a length cannot be told from the next request: end the connection.
            client?.endAfterAnswer()
            throw APIError.badRequest("lengthRequired", "The photo came without a Content-Length, so none of it was read: send its length.")
        }
        var photo = body
        var file = "upload"
        if type == "multipart/form-data" {
            let part = try MultipartFile.photo(in: body, contentType: request.headers[.contentType] ?? "")
            photo = part.bytes
            if let name = part.filename, !name.isEmpty { file = (name as NSString).lastPathComponent }
        }
        if photo.isEmpty { throw APIError.badRequest("empty", "The photo is empty (0 bytes).") }
        let scanRequest = ScanRequest(targets: targets, region: region, context: context, mode: mode, save: true)
        let engine = service.engine
        let metrics = service.metrics
        let chosenFile = file
        let sent = photo
        // The time budget counts from the request's start: waiting for room included.
        let budget = service.configuration.timeBudget - (ContinuousClock.now - start)
        guard budget > .zero else { throw WorkerPool.Refusal.timedOut }
        // The worker also writes the answer's JSON, so that the event loop only sends it.
        let answer = try await service.recognition.run(budget: budget, waiting: configuration.admissionWait, client: client) {
            if client?.isGone == true { throw WorkerPool.Refusal.clientGone }
            var report: ScanReport
            do {
                report = try engine.scan(sent, file: chosenFile, scanRequest, store: try engine.store())
                metrics.recognition("ok")
            } catch {
                metrics.recognition(FileFailure(file: "", error: error).error.code)
                throw error
            }
            if !timing {
                // As `seer scan` prints it without --timing.
                report.milliseconds = nil
                report.decodeMilliseconds = nil
                report.cpuMilliseconds = nil
                report.decodeCpuMilliseconds = nil
            }
            return try JSONBody.encode(report)
        }
        return Reply.json(bytes: answer)
    }

    static func postVerify(_ service: SeerService, _ request: Request, _ context: SeerRequestContext) async throws -> Response {
        let query = try request.query(allowed: ["device", "lat", "lon"])
        let scanContext = ScanContext(
            device: try device(for: context.caller, query: query),
            latitude: try QueryValue.double(query, "lat", range: -90...90), longitude: try QueryValue.double(query, "lon", range: -180...180))
        let payload: String
        switch request.mediaType {
        case "text/plain":
            let bytes = try await request.bytes(limit: service.engine.configuration.limits.payloadBytes + 2)
            guard var text = String(validating: bytes, as: UTF8.self) else {
                throw APIError.badRequest("invalidText", "The payload is not UTF-8 text.")
            }
            if text.hasSuffix("\r\n") { text.removeLast(1) } else if text.hasSuffix("\n") { text.removeLast() }
            payload = text
        case "application/json":
            let object = try await request.jsonObject(allowed: ["payload"], limit: service.engine.configuration.limits.payloadBytes * 2 + 64)
            payload = try object.string("payload", required: true)!
        default:
            throw APIError(.unsupportedMediaType, "unsupportedMediaType", "Send the payload as text/plain, or as application/json {\"payload\": …}.")
        }
        return try Reply.json(try await service.store { engine, store in try engine.verify(payload: payload, context: scanContext, store: store) })
    }

    static let historyParameters: Set<String> = ["result", "category", "period", "search"]

    static func historyQuery(_ query: [String: String], caller: Caller?, limit: Int = 50, offset: Int = 0) throws -> HistoryQuery {
        var history = HistoryQuery(
            result: try QueryValue.choice(query, "result", as: ResultFilter.self, names: ["all", "success", "failed"]) ?? .all,
            category: query["category"],
            period: try QueryValue.choice(query, "period", as: Period.self, names: ["day", "week", "month", "all"]),
            search: query["search"], limit: limit, offset: offset)
        if caller?.role == .device { history.device = caller?.key.device }
        return history
    }

    static func getScans(_ service: SeerService, _ request: Request, _ context: SeerRequestContext) async throws -> Response {
        let query = try request.query(allowed: historyParameters.union(["page", "limit"]))
        let maximum = service.engine.configuration.limits.pageSize
        let limit = try QueryValue.int(query, "limit", range: 1...maximum) ?? 50
        let page = try QueryValue.int(query, "page", range: 1...1_000_000) ?? 1
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
    static func visibleScan(_ id: Int64, caller: Caller?, engine: Engine, store: any SeerStore) throws -> ScanDetails {
        let details = try engine.scanDetails(id: id, store: store)
        if caller?.role == .device, details.scan.device != caller?.key.device {
            throw StoreError(code: "notFound", message: "There is no scan #\(id).")
        }
        return details
    }

    static func getScan(_ service: SeerService, _ request: Request, _ context: SeerRequestContext) async throws -> Response {
        _ = try request.query(allowed: [])
        let id = try scanID(context)
        let caller = context.caller
        return try Reply.json(try await service.store { engine, store in try visibleScan(id, caller: caller, engine: engine, store: store) })
    }

    static func postReport(_ service: SeerService, _ request: Request, _ context: SeerRequestContext) async throws -> Response {
        _ = try request.query(allowed: [])
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

    static func getStats(_ service: SeerService, _ request: Request, _ context: SeerRequestContext) async throws -> Response {
        let query = try request.query(allowed: historyParameters)
        let history = try historyQuery(query, caller: context.caller)
        return try Reply.json(try await service.store { engine, store in try engine.statistics(history, store: store) })
    }

    // MARK: Plates and owners

    static func country(_ text: String?) throws -> Country? {
        guard let text else { return nil }
        do {
            return try Country.parse(text)
        } catch {
            throw APIError(.unprocessableContent, "invalidCountry", error.message)
        }
    }

    static func postResolve(_ service: SeerService, _ request: Request, _ context: SeerRequestContext) async throws -> Response {
        _ = try request.query(allowed: [])
        let object = try await request.jsonObject(allowed: ["plate", "country"], limit: 4096)
        let plate = try object.string("plate", required: true)!
        let country = try country(try object.string("country"))
        return try Reply.json(try await service.store { engine, store in try engine.resolvePlate(plate, country: country, store: store) })
    }

    static func postMessage(_ service: SeerService, _ request: Request, _ context: SeerRequestContext) async throws -> Response {
        _ = try request.query(allowed: [])
        let plate = context.parameters.get("plate") ?? ""
        let decoded = plate.removingPercentEncoding ?? plate
        let object = try await request.jsonObject(allowed: ["preset", "text", "country"], limit: 16 << 10)
        let preset = try object.string("preset")
        let text = try object.string("text")
        let country = try country(try object.string("country"))
        let receipt = try await service.store { engine, store in
            try engine.sendPlateMessage(to: decoded, country: country, preset: preset, text: text, at: Date().timeIntervalSince1970, store: store)
        }
        return try Reply.json(receipt, status: .created)
    }

    static func getInbox(_ service: SeerService, _ request: Request, _ context: SeerRequestContext) async throws -> Response {
        _ = try request.query(allowed: [])
        guard let recipient = context.caller?.key.recipient else {
            throw APIError(
                .forbidden, "noRecipient",
                "This key acts for no plate owner yet: register with POST /v1/users using this key, or make a key with --recipient.")
        }
        return try Reply.json(["messages": try await service.store { _, store in try store.inbox(recipient: recipient) }])
    }

    static func postUser(_ service: SeerService, _ request: Request, _ context: SeerRequestContext) async throws -> Response {
        _ = try request.query(allowed: [])
        let object = try await request.jsonObject(allowed: ["name", "email", "plate", "country"], limit: 16 << 10)
        let name = try object.string("name", required: true)!
        let email = try object.string("email", required: true)!
        let plate = try object.string("plate", required: true)!
        guard let country = try country(try object.string("country", required: true)) else {
            throw APIError.badRequest("missingField", "The field 'country' is required.")
        }
        let caller = context.caller
        if caller?.role == .user, caller?.key.recipient != nil {
            throw APIError(.conflict, "alreadyRegistered", "This key already acts for a plate owner; a key registers one owner.")
        }
        let keys = service.keys
        let receipt = try await service.store { engine, store in
            let receipt = try engine.addUser(name: name, email: email, plate: plate, country: country, store: store)
            if let caller, caller.role == .user { try keys.bind(id: caller.key.id, recipient: receipt.recipient) }
            return receipt
        }
        return try Reply.json(receipt, status: .created)
    }

    // MARK: Administration

    static func putRegistry(_ service: SeerService, _ request: Request, _ context: SeerRequestContext) async throws -> Response {
        _ = try request.query(allowed: [])
        guard request.mediaType == "application/json" else {
            throw APIError(.unsupportedMediaType, "unsupportedMediaType", "Send the registry as application/json (the format of seer registry import).")
        }
        let bytes = try await request.bytes(limit: service.configuration.maxBodyBytes)
        let summary = try await service.store { _, store in try store.importRegistry([(name: "request", data: Data(bytes))]) }
        return try Reply.json(summary)
    }

    static func postKey(_ service: SeerService, _ request: Request, _ context: SeerRequestContext) async throws -> Response {
        _ = try request.query(allowed: [])
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
