#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Owns one open file descriptor for reading; closes it in `deinit`.
final class OpenFile {
    let fd: Int32
    let size: Int
    let path: String

    /// Opens a regular file, refusing anything else (a directory, a FIFO, a device, a socket) and
    /// files over `limit` bytes. The file is opened without blocking, so a FIFO with no writer is
    /// refused at once instead of waiting forever for one.
    init(_ path: String, limit: Int) throws {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else {
            throw ImageError(.unreadable, "cannot open: \(String(cString: strerror(errno)))", source: path)
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw ImageError(.unreadable, "cannot stat: \(reason)", source: path)
        }
        let kind = st.st_mode & S_IFMT
        guard kind == S_IFREG else {
            close(fd)
            throw ImageError(.unreadable, "\(Self.describe(kind)), not a regular file", source: path)
        }
        // Reads of a regular file never block; the flag only mattered for opening.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        let size = Int(st.st_size)
        guard size <= limit else {
            close(fd)
            throw ImageError(.tooLarge, "file is \(size) bytes, over the limit of \(limit)", source: path)
        }
        self.fd = fd
        self.size = size
    }

    deinit { close(fd) }

    private static func describe(_ kind: mode_t) -> String {
        switch kind {
        case S_IFDIR: "is a directory"
        case S_IFIFO: "is a FIFO (named pipe)"
        case S_IFCHR: "is a character device"
        case S_IFBLK: "is a block device"
        case S_IFSOCK: "is a socket"
        default: "is a special file"
        }
    }

    /// Up to `count` bytes from the start of the file, without moving the file offset.
    func prefix(_ count: Int) throws -> [UInt8] {
        try read(upTo: min(count, size), at: 0)
    }

    /// The whole file, without moving the file offset.
    func readAll() throws -> [UInt8] {
        try read(upTo: size, at: 0)
    }

    private func read(upTo count: Int, at offset: Int) throws -> [UInt8] {
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: max(count, 1)) { buffer, initialized in
            var done = 0
            while done < count {
                let n = pread(fd, buffer.baseAddress! + done, count - done, off_t(offset + done))
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    break
                }
                if n == 0 { break }
                done += n
            }
            initialized = done
        }
        if failure != 0 {
            throw ImageError(.unreadable, "cannot read: \(String(cString: strerror(failure)))", source: path)
        }
        return bytes
    }
}
