import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A running `seer serve` (the built executable) on a loopback port it picked, read from its
/// standard error; requests over plain sockets, each on a new connection.
public final class ServeProcess: @unchecked Sendable {
    /// The process.
    public let process = Process()
    /// The port it listens on.
    public let port: Int
    /// Its standard output (`--demo` prints its keys there).
    public let output: Pipe
    let errors: Pipe
    /// What it wrote to standard error, read on as it runs (so a chatty server never blocks on a full pipe).
    let log = Mutex("")

    /// Starts `seer serve --port 0` with `arguments`, `environment` added to this process's own.
    public init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: SeerBinary.path)
        process.arguments = ["serve", "--port", "0"] + arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        output = Pipe()
        errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        var text = ""
        var found: Int?
        let handle = errors.fileHandleForReading
        let deadline = Date().addingTimeInterval(30)
        while found == nil, Date() < deadline {
            let data = handle.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
            if let range = text.range(of: "listening on http://127.0.0.1:") {
                found = Int(text[range.upperBound...].prefix { $0.isNumber })
            }
        }
        guard let found else {
            process.terminate()
            throw Failure(text: "seer serve did not start: \(text)")
        }
        port = found
        log.withLock { $0 = text }
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                log.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
        }
    }

    /// What the server wrote to standard error so far.
    public var errorText: String { log.withLock { $0 } }

    /// A failure to start or to talk to the server.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public var text: String
        /// The same.
        public var description: String { text }
    }

    /// One HTTP/1.1 request over a new connection; returns the status and body. Gives up after
    /// `timeout` seconds without an answer.
    public func request(
        _ method: String, _ path: String, key: String?, contentType: String? = nil, body: [UInt8] = [], timeout: Int = 60
    ) throws -> (Int, String) {
        let connection: LoopbackSocket
        do { connection = try LoopbackSocket(port: port, timeout: timeout) } catch { throw Failure(text: "\(error)") }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: \(body.count)\r\n"
        if let key { head += "Authorization: Bearer \(key)\r\n" }
        if let contentType { head += "Content-Type: \(contentType)\r\n" }
        do { try connection.send(Array((head + "\r\n").utf8) + body) } catch { throw Failure(text: "\(error)") }
        var received: [UInt8] = []
        while true {
            let bytes: [UInt8]
            do { bytes = try connection.receive() } catch { throw Failure(text: "no answer to \(method) \(path) within \(timeout) s (\(error))") }
            if bytes.isEmpty { break }
            received += bytes
        }
        let text = String(decoding: received, as: UTF8.self)
        let status = Int(text.split(separator: " ", maxSplits: 2).dropFirst().first ?? "") ?? 0
        let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        return (status, body)
    }

    /// Sends SIGTERM and waits for the exit status.
    public func stop() -> Int32 {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
