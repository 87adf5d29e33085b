#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes binary PGM (P5) and PPM (P6): uncompressed, so as cheap as output gets.
public enum PNMWriter {
    /// Writes `image` as PGM to an open file descriptor (header, then the pixels without a copy).
    public static func write(_ image: GrayImage, to fd: Int32) throws {
        try writeAll(Array("P5\n\(image.width) \(image.height)\n255\n".utf8), fd)
        try image.pixels.withUnsafeBytes { try writeAll($0, fd) }
    }

    /// Writes `image` as PPM to an open file descriptor.
    public static func write(_ image: RGBImage, to fd: Int32) throws {
        try writeAll(Array("P6\n\(image.width) \(image.height)\n255\n".utf8), fd)
        try image.pixels.withUnsafeBytes { try writeAll($0, fd) }
    }

    /// Writes a PGM (1 channel) or PPM (3 channels) header, for pixels written after it.
    public static func writeHeader(width: Int, height: Int, channels: Int, to fd: Int32) throws {
        try writeAll(Array("\(channels == 3 ? "P6" : "P5")\n\(width) \(height)\n255\n".utf8), fd)
    }

    private static func writeAll(_ bytes: [UInt8], _ fd: Int32) throws {
        try bytes.withUnsafeBytes { try writeAll($0, fd) }
    }

    /// Writes all of `bytes` to `fd`, retrying short writes and interruptions.
    public static func writeAll(_ bytes: UnsafeRawBufferPointer, _ fd: Int32) throws {
        var done = 0
        while done < bytes.count {
            #if canImport(Glibc)
            let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
            #else
            let n = Darwin.write(fd, bytes.baseAddress! + done, bytes.count - done)
            #endif
            if n < 0 {
                if errno == EINTR { continue }
                throw ImageError(.unreadable, "cannot write: \(String(cString: strerror(errno)))")
            }
            done += n
        }
    }
}
