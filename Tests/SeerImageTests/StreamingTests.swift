#if canImport(Glibc)
import Glibc
#endif
import SeerImage
import Testing

/// Files over 256 KiB are decoded straight from the file descriptor; these tests make such files by
/// padding a fixture with APP15 segments (valid JPEG that decoders skip).
@Suite("Decoding large JPEG files from disk")
struct StreamingTests {
    /// `jpeg` with `segments` APP15 segments of 60 000 bytes inserted after its leading APPn segments.
    static func padded(_ jpeg: [UInt8], segments: Int) -> [UInt8] {
        var at = 2
        while at + 4 <= jpeg.count, jpeg[at] == 0xFF, (0xE0...0xEF).contains(jpeg[at + 1]) {
            at += 2 + (Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3]))
        }
        var segment: [UInt8] = [0xFF, 0xEF, UInt8(60_002 >> 8), UInt8(60_002 & 0xFF)]
        segment += [UInt8](repeating: 0x5A, count: 60_000)
        var out = Array(jpeg[..<at])
        for _ in 0..<segments { out += segment }
        return out + jpeg[at...]
    }

    static func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = "/tmp/seer-streaming-\(getpid())-\(name)"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(fd >= 0)
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        try #require(written == bytes.count)
        return path
    }

    @Test(arguments: ["baseline-420.jpg", "progressive.jpg", "restart.jpg", "cmyk-adobe.jpg"])
    func sameImageAsFromMemory(name: String) throws {
        let big = Self.padded(try ImageDecoder.readFile(Fixtures.path("decode", name)), segments: 6)
        #expect(big.count > 256 << 10)
        let path = try Self.write(big, name)
        defer { unlink(path) }
        let fromFile = try ImageDecoder.decode(contentsOf: path, options: DecodeOptions(includeRGB: true))
        let fromMemory = try ImageDecoder.decode(big, options: DecodeOptions(includeRGB: true))
        #expect(fromFile.gray == fromMemory.gray)
        #expect(fromFile.rgb == fromMemory.rgb)
        let quarter = try ImageDecoder.decode(contentsOf: path, options: DecodeOptions(scale: 4))
        #expect(quarter.gray == (try ImageDecoder.decode(big, options: DecodeOptions(scale: 4))).gray)
    }

    @Test func orientationReadFromTheFileHead() throws {
        let big = Self.padded(try ImageDecoder.readFile(Fixtures.path("orientation", "jpeg-6.jpg")), segments: 6)
        let path = try Self.write(big, "jpeg-6.jpg")
        defer { unlink(path) }
        let image = try ImageDecoder.decode(contentsOf: path)
        #expect(image.info.orientation == .right)
        #expect(image.gray.width == 48 && image.gray.height == 32)
        #expect(try ImageDecoder.info(contentsOf: path).orientation == .right)
    }

    @Test func truncationIsAnError() throws {
        let big = Self.padded(try ImageDecoder.readFile(Fixtures.path("decode", "baseline-444.jpg")), segments: 6)
        for cut in [big.count - 200, big.count - 600, 300_000] {
            let path = try Self.write(Array(big.prefix(cut)), "cut-\(cut).jpg")
            defer { unlink(path) }
            let error = #expect(throws: ImageError.self) { try ImageDecoder.decode(contentsOf: path) }
            #expect(error?.code == .truncated)
            #expect(error?.source == path)
        }
    }

    @Test func oversizedHeaderIsRefusedBeforeDecoding() throws {
        let big = Self.padded(try ImageDecoder.readFile(Fixtures.path("malformed", "huge.jpg")), segments: 6)
        let path = try Self.write(big, "huge.jpg")
        defer { unlink(path) }
        let error = #expect(throws: ImageError.self) { try ImageDecoder.decode(contentsOf: path) }
        #expect(error?.code == .tooLarge)
    }
}
