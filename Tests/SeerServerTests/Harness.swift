import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Seer
import SeerCodegen
import SeerTestSupport
import Synchronization
import Testing

@testable import SeerServer

/// A service over a real SQLite file holding the demo registry, with one key per role.
final class Harness: Sendable {
    let directory: TemporaryDirectory
    let service: SeerService
    let device: String
    let otherDevice: String
    let user: String
    let admin: String
    let logs: LogCapture

    init(_ configure: (inout ServiceConfiguration, inout Engine.Configuration) -> Void = { _, _ in }) throws {
        directory = try TemporaryDirectory("seer-serve")
        let path = directory.file("seer.sqlite")
        var serviceConfiguration = ServiceConfiguration()
        serviceConfiguration.workers = 2
        var engineConfiguration = Engine.Configuration()
        engineConfiguration.store = .sqlite(path: path)
        configure(&serviceConfiguration, &engineConfiguration)
        let engine = Engine(configuration: engineConfiguration)
        let encoder = JSONEncoder()
        _ = try engine.store().importRegistry(try VerifyDemo.registryFiles().map { (name: $0.name, data: try encoder.encode($0.file)) })
        let keys = try APIKeyStore(path: path)
        device = try keys.create(role: .device, name: "phone-1").key
        otherDevice = try keys.create(role: .device, name: "phone-2").key
        user = try keys.create(role: .user, name: "alex", recipient: "rcp-7f3a9c").key
        admin = try keys.create(role: .admin, name: "ops").key
        let logs = LogCapture()
        self.logs = logs
        var logger = Logger(label: "seer.serve.test", factory: { _ in logs })
        logger.logLevel = .debug
        service = SeerService(engine: engine, keys: keys, configuration: serviceConfiguration, logger: logger)
    }

    deinit { service.shutdown() }

    /// Runs `body` against the application through HummingbirdTesting's router client.
    func test(_ body: @Sendable (Client) async throws -> Void) async throws {
        try await service.application().test(.router) { client in try await body(Client(client: client)) }
    }
}

/// A test client that checks every answer against the OpenAPI document and that no answer
/// carries a plate owner's email.
struct Client: Sendable {
    let client: any TestClientProtocol

    struct Answer {
        var status: Int
        var headers: HTTPFields
        var body: [UInt8]
        var json: Any? { try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) }
        var object: [String: Any] { json as? [String: Any] ?? [:] }
        var errorCode: String? { (object["error"] as? [String: Any])?["code"] as? String }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// Sends a request to `path` for the route `route` (its OpenAPI template), with `key` as the Bearer key.
    @discardableResult
    func send(
        _ method: HTTPRequest.Method, _ route: String, path: String? = nil, key: String? = nil, contentType: String? = nil,
        headers extra: HTTPFields = [:], body: [UInt8]? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Answer {
        var headers = extra
        if let key { headers[.authorization] = "Bearer \(key)" }
        if let contentType { headers[.contentType] = contentType }
        let response = try await client.execute(
            uri: path ?? route, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) })
        let answer = Answer(status: Int(response.status.code), headers: response.headers, body: Array(response.body.readableBytesView))
        let problems = Contract.shared.check(method: method.rawValue, route: route, answer: answer)
        #expect(problems.isEmpty, "\(method) \(path ?? route) → \(answer.status) \(answer.text.prefix(300)): \(problems)", sourceLocation: sourceLocation)
        #expect(!answer.text.contains("@example.com"), "an answer carries an email: \(answer.text.prefix(300))", sourceLocation: sourceLocation)
        return answer
    }

    func json(_ method: HTTPRequest.Method, _ route: String, path: String? = nil, key: String?, _ object: [String: Any], sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> Answer
    {
        try await send(
            method, route, path: path, key: key, contentType: "application/json",
            body: Array(try JSONSerialization.data(withJSONObject: object)), sourceLocation: sourceLocation)
    }
}

/// The committed OpenAPI document, as tests check answers against it.
final class Contract: Sendable {
    static let shared = Contract()
    /// Parsed once, never changed.
    nonisolated(unsafe) let document: [String: Any]
    let covered = Mutex<Set<String>>([])

    init() {
        document = (try? JSONSerialization.jsonObject(with: Data(OpenAPIDocument.bytes))) as? [String: Any] ?? [:]
    }

    var paths: [String: [String: Any]] { document["paths"] as? [String: [String: Any]] ?? [:] }

    /// Every documented `METHOD path`.
    var operations: Set<String> {
        var result: Set<String> = []
        for (path, item) in paths {
            for method in item.keys where ["get", "put", "post", "delete", "patch"].contains(method) {
                result.insert("\(method.uppercased()) \(path)")
            }
        }
        return result
    }

    func resolve(_ schema: [String: Any]) -> [String: Any] {
        guard let reference = schema["$ref"] as? String else { return schema }
        let name = reference.split(separator: "/").last.map(String.init) ?? ""
        let schemas = (document["components"] as? [String: Any])?["schemas"] as? [String: Any]
        return schemas?[name] as? [String: Any] ?? [:]
    }

    /// What is wrong with an answer, by the document: the status must be documented for the
    /// operation, and a JSON body must have the documented schema's type and required keys (one level,
    /// and the same for array items and nested objects with required keys).
    func check(method: String, route: String, answer: Client.Answer) -> [String] {
        covered.withLock { _ = $0.insert("\(method) \(route) \(answer.status)") }
        guard let operation = paths[route]?[method.lowercased()] as? [String: Any] else {
            // A route the service does not have: 404 in the one error shape.
            guard answer.status == 404, let value = answer.json else { return ["\(method) \(route) is not in the document"] }
            return validate(value, ["$ref": "#/components/schemas/Error"], at: "$")
        }
        guard let responses = operation["responses"] as? [String: Any], let response = responses["\(answer.status)"] as? [String: Any]
        else {
            return ["status \(answer.status) is not documented for \(method) \(route)"]
        }
        guard let content = response["content"] as? [String: Any] else { return answer.body.isEmpty ? [] : ["undocumented body"] }
        let type = answer.headers[.contentType]?.split(separator: ";").first.map(String.init) ?? ""
        guard let media = content[type] as? [String: Any] else { return ["content type \(type) is not documented"] }
        guard type == "application/json", let schema = media["schema"] as? [String: Any] else { return [] }
        guard let value = answer.json else { return ["the body is not JSON"] }
        return validate(value, schema, at: "$")
    }

    func validate(_ value: Any, _ schema: [String: Any], at place: String) -> [String] {
        let schema = resolve(schema)
        var problems: [String] = []
        let types: [String] = (schema["type"] as? String).map { [$0] } ?? (schema["type"] as? [String]) ?? []
        if !types.isEmpty {
            let actual: String
            switch value {
            case is NSNull: actual = "null"
            case is NSNumber: actual = "number"
            case is String: actual = "string"
            case is [Any]: actual = "array"
            case is [String: Any]: actual = "object"
            default: actual = "unknown"
            }
            // JSONSerialization gives numbers and booleans alike as NSNumber.
            let fits = types.contains(actual) || (actual == "number" && (types.contains("integer") || types.contains("boolean")))
            if !fits { problems.append("\(place) is \(actual), documented \(types)") }
        }
        if let object = value as? [String: Any] {
            for key in schema["required"] as? [String] ?? [] where object[key] == nil { problems.append("\(place) lacks required '\(key)'") }
            if let properties = schema["properties"] as? [String: Any] {
                for (key, sub) in properties {
                    if let nested = object[key], !(nested is NSNull), let sub = sub as? [String: Any] {
                        problems += validate(nested, sub, at: "\(place).\(key)")
                    }
                }
                if schema["additionalProperties"] as? Bool == false {
                    for key in object.keys where properties[key] == nil { problems.append("\(place) has undocumented '\(key)'") }
                }
            }
        }
        if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
            for (index, element) in array.enumerated() { problems += validate(element, items, at: "\(place)[\(index)]") }
        }
        if let choices = schema["enum"] as? [String], let text = value as? String, !choices.contains(text) {
            problems.append("\(place) is '\(text)', not one of \(choices)")
        }
        return problems
    }
}

/// A log handler that keeps every line, to check what the service logs.
final class LogCapture: LogHandler, Sendable {
    let lines = Mutex<[String]>([])
    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }
    var logLevel: Logger.Level {
        get { .debug }
        set {}
    }
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }

    func log(event: LogEvent) {
        let line = "\(event.level) \(event.message) \(event.metadata.map { "\($0)" } ?? "")"
        lines.withLock { $0.append(line) }
    }

    var all: [String] { lines.withLock { $0 } }
}

enum Photos {
    static func bytes(_ relative: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: Repository.path(relative))))
    }
}
