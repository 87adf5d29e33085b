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

    /// Opens a regular file, refusing directories and files over `limit` bytes.
    init(_ path: String, limit: Int) throws {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw ImageError(.unreadable, "cannot open: \(String(cString: strerror(errno)))", source: path)
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw ImageError(.unreadable, "cannot stat: \(reason)", source: path)
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw ImageError(.unreadable, "is a directory", source: path)
        }
        let size = Int(st.st_size)
        guard size <= limit else {
            close(fd)
            throw ImageError(.tooLarge, "file is \(size) bytes, over the limit of \(limit)", source: path)
        }
        self.fd = fd
        self.size = size
    }

    deinit { close(fd) }

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
