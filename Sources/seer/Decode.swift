import ArgumentParser
import Seer

#if canImport(Glibc)
import Glibc
#endif

struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode one image and write the pixels the recognisers see (PGM, PPM or PNG).",
        discussion: """
            The output is the luminance image (or RGB with --rgb), oriented as displayed, reduced by \
            --scale (1, 2, 4 or 8; JPEG uses DCT scaling). The output format follows --output's \
            extension: .png writes PNG, anything else (including - for standard output) binary PGM/PPM.
            """)

    @Option(name: .long, help: "Reduce each side by 1, 2, 4 or 8 (also written 1/2, 1/4, 1/8).")
    var scale: String = "1"

    @Flag(name: .long, help: "Write colour (PPM/PNG RGB) instead of luminance.")
    var rgb = false

    @Flag(name: .long, help: "Keep the stored pixel grid; do not apply the EXIF orientation.")
    var noOrientation = false

    @Flag(name: .long, help: "Use libjpeg's fast integer IDCT.")
    var fastDCT = false

    @Option(name: [.short, .long], help: "Where to write the image (- for standard output).")
    var output: String = "-"

    @Argument(help: "The image file (- for standard input).")
    var file: String

    var scaleFactor: Int? {
        switch scale {
        case "1", "1/1": 1
        case "2", "1/2": 2
        case "4", "1/4": 4
        case "8", "1/8": 8
        default: nil
        }
    }

    func validate() throws {
        if scaleFactor == nil { throw ValidationError("--scale must be 1, 2, 4 or 8 (or 1/2, 1/4, 1/8).") }
    }

    func run() throws {
        let options = DecodeOptions(
            scale: scaleFactor ?? 1, includeRGB: rgb, applyOrientation: !noOrientation, fastDCT: fastDCT)
        do {
            let image =
                file == "-"
                ? try ImageDecoder.decode(try readStandardInput(), options: options)
                : try ImageDecoder.decode(contentsOf: file, options: options)
            if output.hasSuffix(".png") {
                if rgb, let colour = image.rgb { try PNGWriter.write(colour, to: output) } else {
                    try PNGWriter.write(image.gray, to: output)
                }
                return
            }
            let fd = output == "-" ? 1 : open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw ImageError(.unreadable, "cannot create \(output)") }
            defer { if fd != 1 { close(fd) } }
            if rgb, let colour = image.rgb { try PNMWriter.write(colour, to: fd) } else { try PNMWriter.write(image.gray, to: fd) }
        } catch let error as ImageError {
            Console.err("seer: \(error.source ?? file): \(error.code.rawValue): \(error.message)")
            throw ExitCode(1)
        }
    }
}

/// All of standard input.
func readStandardInput() throws -> [UInt8] {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            throw ImageError(.unreadable, "cannot read standard input", source: "-")
        }
        if n == 0 { break }
        bytes.append(contentsOf: chunk[0..<n])
    }
    return bytes
}
