import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// Reading what a request sends: the body (bounded while it streams), query parameters, JSON
/// objects with known keys only, and multipart form data.
extension Request {
    /// The body, refused with 413 as soon as it passes `limit` bytes (a `Content-Length` over the
    /// limit is refused before anything is read).
    func bytes(limit: Int, received: Received? = nil) async throws -> [UInt8] {
        let declared = headers[.contentLength].flatMap(Int.init)
        if let declared, declared > limit {
            throw APIError(.contentTooLarge, "tooLarge", "The body is \(declared) bytes; the limit is \(limit).")
        }
        var bytes: [UInt8] = []
        if let declared, declared > 0 { bytes.reserveCapacity(declared) }
        for try await buffer in body {
            if bytes.count + buffer.readableBytes > limit {
                throw APIError(.contentTooLarge, "tooLarge", "The body is larger than the limit of \(limit) bytes.")
            }
            // One copy of the chunk's memory, not a walk over its bytes.
            buffer.withUnsafeReadableBytes { bytes.append(contentsOf: $0) }
            received?.count.store(bytes.count, ordering: .relaxed)
        }
        return bytes
    }

    /// A photo's body as it arrives, under a time limit and a minimum rate: it must be whole by
    /// `deadline`, and once `grace` has passed it must have come at `minimumRate` bytes per second
    /// on average since then. A slower upload is refused (400 `uploadTooSlow`) and its connection ends
    /// after the answer, so that a client that sends a few bytes and waits holds nothing for long.
    func upload(limit: Int, by deadline: ContinuousClock.Instant, minimumRate: Int, grace: Duration, client: ClientPresence?) async throws
        -> [UInt8]
    {
        let received = Received()
        let start = ContinuousClock.now
        let body = try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
            group.addTask { try await self.bytes(limit: limit, received: received) }
            group.addTask {
                // Wakes at the grace's end, then every quarter second, until the body is whole.
                var wake = min(start + grace, deadline)
                while true {
                    try await Task.sleep(until: wake)
                    let now = ContinuousClock.now
                    let owed = Double(minimumRate) * max(0, (now - start - grace).seconds)
                    if now >= deadline || Double(received.count.load(ordering: .relaxed)) < owed { return nil }
                    wake = min(now + .milliseconds(250), deadline)
                }
            }
            let first = try await group.next()!
            group.cancelAll()
            return first
        }
        guard let body else {
            client?.endAfterAnswer()
            throw APIError.badRequest(
                "uploadTooSlow",
                "The body did not arrive in time: it must arrive within the time budget and, after \(grace.seconds) s, at \(minimumRate) bytes a second or more."
            )
        }
        return body
    }

    /// Bytes of a body received so far.
    final class Received: Sendable {
        let count = Atomic(0)
    }

    /// The media type of the body, lower-cased, without parameters (`image/jpeg`).
    var mediaType: String? {
        headers[.contentType].map { $0.split(separator: ";", maxSplits: 1)[0].trimmingSpaces().lowercased() }
    }

    /// The query parameters, refusing any name not in `allowed` and any name given twice.
    func query(allowed: Set<String>) throws -> Query {
        var query = Query()
        for (name, value) in uri.queryParameters {
            let name = String(name)
            guard allowed.contains(name) else {
                let known = allowed.isEmpty ? "this route takes none" : "known: \(allowed.sorted().joined(separator: ", "))"
                throw APIError.badRequest("unknownParameter", "Unknown query parameter '\(name)' (\(known)).")
            }
            guard query[name] == nil else { throw APIError.badRequest("invalidParameter", "The query parameter '\(name)' is given twice.") }
            query.values[name] = String(value)
        }
        return query
    }

    /// The body as a JSON object whose keys are all in `allowed` (an unknown key is refused, naming it).
    func jsonObject(allowed: Set<String>, limit: Int, required: Bool = true) async throws -> [String: Any] {
        if let type = mediaType, type != "application/json" {
            throw APIError(.unsupportedMediaType, "unsupportedMediaType", "This route takes application/json; the body is \(type).")
        }
        let bytes = try await self.bytes(limit: limit)
        if bytes.isEmpty {
            if required { throw APIError.badRequest("invalidJSON", "The body is empty; this route takes a JSON object.") }
            return [:]
        }
        if mediaType == nil { throw APIError(.unsupportedMediaType, "unsupportedMediaType", "This route takes application/json; no Content-Type was sent.") }
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: Data(bytes), options: [])
        } catch {
            throw APIError.badRequest("invalidJSON", "The body is not valid JSON.")
        }
        guard let object = value as? [String: Any] else { throw APIError.badRequest("invalidJSON", "The body must be a JSON object.") }
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw APIError.badRequest("unknownField", "Unknown field '\(unknown)' (known: \(allowed.sorted().joined(separator: ", "))).")
        }
        return object
    }
}

/// Typed access to a JSON object's fields.
extension Dictionary where Key == String, Value == Any {
    func string(_ key: String, required: Bool = false) throws -> String? {
        guard let value = self[key], !(value is NSNull) else {
            if required { throw APIError.badRequest("missingField", "The field '\(key)' is required.") }
            return nil
        }
        guard let text = value as? String else { throw APIError.badRequest("invalidField", "The field '\(key)' must be a string.") }
        return text
    }
}

/// A request's query parameters, each read as what it takes.
struct Query: Sendable {
    var values: [String: String] = [:]

    subscript(name: String) -> String? { values[name] }

    /// The parameter `name` as `parse` reads it (nil when absent); a value it refuses is a 400 that
    /// says what `name` takes.
    func value<T>(_ name: String, _ takes: String, _ parse: (String) -> T?) throws -> T? {
        guard let text = values[name] else { return nil }
        guard let value = parse(text) else { throw APIError.badRequest("invalidParameter", "'\(name)' \(takes); it is '\(text)'.") }
        return value
    }

    func double(_ name: String, range: ClosedRange<Double>) throws -> Double? {
        try value(name, "must be a number from \(range.lowerBound) to \(range.upperBound)") { text in
            Double(text).flatMap { range.contains($0) ? $0 : nil }
        }
    }

    func int(_ name: String, range: ClosedRange<Int>) throws -> Int? {
        try value(name, "must be a whole number from \(range.lowerBound) to \(range.upperBound)") { text in
            Int(text).flatMap { range.contains($0) ? $0 : nil }
        }
    }

    func choice<T: RawRepresentable>(_ name: String, as type: T.Type, names: [String]) throws -> T? where T.RawValue == String {
        try value(name, "takes \(names.joined(separator: ", "))", T.init(rawValue:))
    }
}

/// One file of a `multipart/form-data` body.
struct MultipartFile {
    var name: String?
    var filename: String?
    var contentType: String?
    var bytes: [UInt8]

    /// The photo part of a multipart body: the part named `photo` or `file`, else the first part
    /// with a file name or an image type.
    static func photo(in body: [UInt8], contentType: String) throws -> MultipartFile {
        let parts = try parse(body, contentType: contentType)
        if let part = parts.first(where: { $0.name == "photo" || $0.name == "file" })
            ?? parts.first(where: { $0.filename != nil || ($0.contentType?.hasPrefix("image/") ?? false) })
        {
            return part
        }
        throw APIError.badRequest("missingPhoto", "The multipart body holds no photo: send it as a part named 'photo'.")
    }

    static func parse(_ body: [UInt8], contentType: String) throws -> [MultipartFile] {
        guard let boundaryParameter = contentType.split(separator: ";").dropFirst()
            .map({ $0.trimmingSpaces() }).first(where: { $0.lowercased().hasPrefix("boundary=") })
        else {
            throw APIError.badRequest("invalidMultipart", "A multipart/form-data body needs a boundary parameter in its Content-Type.")
        }
        var boundary = String(boundaryParameter.dropFirst("boundary=".count))
        if boundary.hasPrefix("\""), boundary.hasSuffix("\""), boundary.count >= 2 { boundary = String(boundary.dropFirst().dropLast()) }
        guard !boundary.isEmpty, boundary.utf8.count <= 70 else {
            throw APIError.badRequest("invalidMultipart", "The multipart boundary must have 1 to 70 characters.")
        }
        let delimiter = Array("--\(boundary)".utf8)
        let separator = Array("\r\n--\(boundary)".utf8)
        guard var position = find(delimiter, in: body, from: 0) else {
            throw APIError.badRequest("invalidMultipart", "The multipart body does not contain its boundary.")
        }
        position += delimiter.count
        var parts: [MultipartFile] = []
        while true {
            // After a delimiter: "--" ends the body, CRLF starts a part.
            if body.count >= position + 2, body[position] == UInt8(ascii: "-"), body[position + 1] == UInt8(ascii: "-") { return parts }
            guard body.count >= position + 2, body[position] == 13, body[position + 1] == 10 else {
                throw APIError.badRequest("truncatedUpload", "The multipart body ends early (no closing boundary): the upload was cut short.")
            }
            position += 2
            guard let headerEnd = find(Array("\r\n\r\n".utf8), in: body, from: position) else {
                throw APIError.badRequest("truncatedUpload", "A multipart part's headers do not end: the upload was cut short.")
            }
            let headerText = String(decoding: body[position..<headerEnd], as: UTF8.self)
            var part = MultipartFile(bytes: [])
            for line in headerText.split(separator: "\r\n") {
                let pieces = line.split(separator: ":", maxSplits: 1)
                guard pieces.count == 2 else { continue }
                let value = pieces[1].trimmingSpaces()
                switch pieces[0].lowercased() {
                case "content-disposition":
                    part.name = parameter("name", in: value)
                    part.filename = parameter("filename", in: value)
                case "content-type": part.contentType = value.lowercased()
                default: break
                }
            }
            let contentStart = headerEnd + 4
            guard let contentEnd = find(separator, in: body, from: contentStart) else {
                throw APIError.badRequest("truncatedUpload", "A multipart part does not end with the boundary: the upload was cut short.")
            }
            part.bytes = Array(body[contentStart..<contentEnd])
            parts.append(part)
            position = contentEnd + separator.count
        }
    }

    static func parameter(_ name: String, in value: String) -> String? {
        for piece in value.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingSpaces().lowercased() == name else { continue }
            var text = pair[1].trimmingSpaces()
            if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = String(text.dropFirst().dropLast()) }
            return text
        }
        return nil
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        start <= haystack.count ? haystack[start...].firstRange(of: needle)?.lowerBound : nil
    }
}

extension StringProtocol {
    /// Without the spaces and tabs at either end (HTTP's optional white space), in Swift alone:
    /// Foundation's `trimmingCharacters(in:)` goes through NSString, a cost every request paid.
    func trimmingSpaces() -> String {
        let utf8 = String(self).utf8
        guard let first = utf8.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { return "" }
        let last = utf8.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })!
        return String(decoding: utf8[first...last], as: UTF8.self)
    }
}
