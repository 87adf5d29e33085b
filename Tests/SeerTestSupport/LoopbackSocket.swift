import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection to a port on 127.0.0.1, for tests that speak HTTP over a plain socket: send
/// bytes, receive bytes, close. Closed when dropped.
public final class LoopbackSocket: Sendable {
    /// A failure to connect, send or receive.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public var description: String
    }

    /// The descriptor, until closed.
    let descriptor: Mutex<Int32?>

    /// Connects; with `timeout`, each send and receive gives up after that many seconds.
    public init(port: Int, timeout: Int? = nil) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "cannot open a socket: errno \(errno)") }
        if let timeout {
            var limit = timeval(tv_sec: timeout, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let code = errno
            Glibc.close(fd)
            throw Failure(description: "cannot connect: errno \(code)")
        }
        descriptor = Mutex(fd)
    }

    deinit { close() }

    /// Sends all of `bytes`.
    public func send(_ bytes: [UInt8]) throws {
        guard let fd = descriptor.withLock({ $0 }) else { throw Failure(description: "send on a closed socket") }
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw Failure(description: "send failed: errno \(errno)") }
            sent += n
        }
    }

    /// The next bytes received; empty when the other side has closed.
    /// - Throws: when nothing came within the timeout, or the socket failed.
    public func receive() throws -> [UInt8] {
        guard let fd = descriptor.withLock({ $0 }) else { throw Failure(description: "receive on a closed socket") }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n < 0 { throw Failure(description: "nothing received (errno \(errno))") }
        return Array(buffer[0..<n])
    }

    /// Closes the connection (once).
    public func close() {
        if let fd = descriptor.withLock({ $0.take() }) { Glibc.close(fd) }
    }
}
