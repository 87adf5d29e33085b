internal import CPNG

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes PNG files with libpng's simplified API (which reports errors as return codes, not longjmp).
public enum PNGWriter {
    /// PNG bytes of a grey image. The corresponding C function is `png_image_write_to_memory`.
    public static func encode(_ image: GrayImage) throws -> [UInt8] {
        try encode(pixels: image.pixels, width: image.width, height: image.height, format: UInt32(PNG_FORMAT_GRAY), channels: 1)
    }

    /// PNG bytes of an RGB image.
    public static func encode(_ image: RGBImage) throws -> [UInt8] {
        try encode(pixels: image.pixels, width: image.width, height: image.height, format: UInt32(PNG_FORMAT_RGB), channels: 3)
    }

    /// Writes a grey image to `path` as PNG.
    public static func write(_ image: GrayImage, to path: String) throws { try save(encode(image), to: path) }

    /// Writes an RGB image to `path` as PNG.
    public static func write(_ image: RGBImage, to path: String) throws { try save(encode(image), to: path) }

    private static func encode(pixels: [UInt8], width: Int, height: Int, format: UInt32, channels: Int) throws -> [UInt8] {
        guard width > 0, height > 0 else { throw ImageError(.corrupt, "cannot write an empty image") }
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format = format
        let stride = Int32(width * channels)
        var size = 0
        // First call sizes the output, second writes it.
        let sized = pixels.withUnsafeBytes { p in
            png_image_write_to_memory(&image, nil, &size, 0, p.baseAddress, stride, nil)
        }
        guard sized != 0, size > 0 else {
            let message = withUnsafeBytes(of: image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            png_image_free(&image)
            throw ImageError(.corrupt, "PNG encoding failed: \(message)")
        }
        var out = [UInt8](repeating: 0, count: size)
        let written = out.withUnsafeMutableBytes { o in
            pixels.withUnsafeBytes { p in
                png_image_write_to_memory(&image, o.baseAddress, &size, 0, p.baseAddress, stride, nil)
            }
        }
        png_image_free(&image)
        guard written != 0 else { throw ImageError(.corrupt, "PNG encoding failed") }
        return Array(out.prefix(size))
    }

    private static func save(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw ImageError(.unreadable, "cannot create: \(String(cString: strerror(errno)))", source: path)
        }
        defer { close(fd) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, bytes.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ImageError(.unreadable, "cannot write: \(String(cString: strerror(errno)))", source: path)
            }
            done += n
        }
    }
}
