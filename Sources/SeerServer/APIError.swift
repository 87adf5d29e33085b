import Foundation
import Hummingbird
import NIOHTTP1
import Seer

/// Every error the service answers, as `{"error":{"code":…,"message":…}}` with its HTTP status.
public struct APIError: Error, Sendable, Equatable {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// A stable machine-readable code (`unauthorized`, `tooLarge`, `notAnImage`, …).
    public var code: String
    /// What went wrong, in words.
    public var message: String
    /// Seconds to wait before trying again (503 only).
    public var retryAfter: Int?

    /// Creates an error.
    public init(_ status: HTTPResponse.Status, _ code: String, _ message: String, retryAfter: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    static func badRequest(_ code: String, _ message: String) -> APIError { APIError(.badRequest, code, message) }

    /// The answer for any error a route throws: the service's own, Hummingbird's (unknown route,
    /// wrong method), a refused queue job, and every typed error of the Engine with its stable code.
    static func from(_ error: any Error) -> APIError {
        switch error {
        case let error as APIError: return error
        case let error as WorkerPool.Refusal:
            switch error {
            case .overloaded:
                return APIError(.serviceUnavailable, "overloaded", "The service is busy: every worker is taken and the queue is full. Try again shortly.", retryAfter: 1)
            case .timedOut:
                return APIError(.serviceUnavailable, "timedOut", "The request was not done within the service's time budget. Try again shortly.", retryAfter: 2)
            case .closed:
                return APIError(.serviceUnavailable, "shuttingDown", "The service is shutting down.", retryAfter: 5)
            case .clientGone:
                // Nobody reads it: the status is for the log line and the metrics (nginx's 499).
                return APIError(.init(code: 499, reasonPhrase: "Client Closed Request"), "clientClosedRequest", "The client went away before its photo was read.")
            }
        case let error as HTTPParserError:
            return APIError.badRequest("malformedRequest", "The request is not valid HTTP/1.1 (\(error)).")
        case let error as HTTPError:
            let code: String
            switch error.status {
            case .notFound: code = "notFound"
            case .methodNotAllowed: code = "methodNotAllowed"
            case .contentTooLarge: code = "tooLarge"
            default: code = "httpError"
            }
            let message = error.body ?? (error.status == .notFound ? "There is no such route." : error.status.reasonPhrase)
            return APIError(error.status, code, message)
        default:
            let failure = FileFailure(file: "", error: error)
            return APIError(status(for: failure.error.code, error), failure.error.code, failure.error.message)
        }
    }

    /// The HTTP status for an Engine error code.
    static func status(for code: String, _ error: any Error) -> HTTPResponse.Status {
        switch code {
        case "notFound", "notRegistered": return .notFound
        case "duplicate", "ambiguous": return .conflict
        case "tooLarge", "payloadTooLong": return .contentTooLarge
        case "busy", "diskFull", "readOnly": return .serviceUnavailable
        case "missingLanguageData", "ocrInitFailed", "outOfMemory", "database", "cannotOpen",
            "damagedRow", "failed":
            return .internalServerError
        default:
            // Images that are no images, refused payloads, plates that cannot be plates, refused imports.
            return .unprocessableContent
        }
    }

    /// The JSON body.
    var body: [UInt8] {
        let fallback = Array(#"{"error":{"code":"failed","message":"cannot encode"}}"#.utf8)
        return (try? JSONBody.encode(["error": Detail(code: code, message: message)])) ?? fallback
    }

    struct Detail: Encodable {
        var code: String
        var message: String
    }
}

/// JSON as the CLI prints it: keys sorted, slashes not escaped.
enum JSONBody {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        Array(try encoder.encode(value))
    }
}
