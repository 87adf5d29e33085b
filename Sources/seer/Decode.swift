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
            // Grey PGM from a JPEG that needs no turning streams band by band, as djpeg does.
            let input = Input(RawPath.argument(file) ?? Array(file.utf8))
            if !rgb, file != "-", !output.hasSuffix(".png"), try input.withPath({ try streamPGM($0, options) }) { return }
            let image =
                file == "-"
                ? try ImageDecoder.decode(try readStandardInput(), options: options)
                : try input.withPath { try ImageDecoder.decode(contentsOf: $0, options: options) }
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

extension Decode {
    /// The command from plain arguments, without the general parser: `--scale V`, `--rgb`,
    /// `--no-orientation`, `--fast-dct`, `-o V` / `--output V` (also `--name=V`) and one file, each at
    /// most once, with a valid scale. Anything else gives nil, and the general parser takes over (and
    /// reports errors). `SeerCLITests` checks that both parse the same lists alike.
    static func fromPlainArguments(_ arguments: ArraySlice<String>) -> Decode? {
        // Built on a variable: the property wrappers take values through their setters.
        var command = Decode()
        command.scale = "1"
        command.rgb = false
        command.noOrientation = false
        command.fastDCT = false
        command.output = "-"
        var file: String?
        var seen: Set<String> = []
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            var name = argument, value: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            }
            guard seen.insert(name == "-o" ? "--output" : name).inserted else { return nil }
            switch name {
            case "--scale", "--output", "-o":
                guard let v = value ?? rest.popFirst(), !v.isEmpty, v == "-" || !v.hasPrefix("-") else { return nil }
                if name == "--scale" { command.scale = v } else { command.output = v }
            case "--rgb", "--no-orientation", "--fast-dct":
                guard value == nil else { return nil }
                if name == "--rgb" {
                    command.rgb = true
                } else if name == "--fast-dct" {
                    command.fastDCT = true
                } else {
                    command.noOrientation = true
                }
            default:
                guard file == nil, value == nil, argument == "-" || !argument.hasPrefix("-") else { return nil }
                file = argument
            }
        }
        guard let file, command.scaleFactor != nil else { return nil }
        command.file = file
        return command
    }

    /// Writes the grey image as PGM while it is decoded, a band of rows at a time. Returns false,
    /// having written nothing, when the photo cannot be decoded that way (not a JPEG, or it must be
    /// turned): then it is decoded in full. If decoding fails part-way, a file being written is
    /// emptied again, so no partial image is left behind, and the error is thrown.
    func streamPGM(_ path: String, _ options: DecodeOptions) throws -> Bool {
        var fd: Int32 = -1
        defer { if fd > 1 { close(fd) } }
        do {
            let info = try ImageDecoder.decodeRows(contentsOf: path, options: options) { band in
                if fd < 0 {
                    fd = output == "-" ? 1 : open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
                    guard fd >= 0 else { throw ImageError(.unreadable, "cannot create \(output)") }
                    try PNMWriter.writeHeader(width: band.width, height: band.height, channels: 1, to: fd)
                }
                try PNMWriter.writeAll(UnsafeRawBufferPointer(band.pixels), fd)
            }
            return info != nil
        } catch {
            if fd > 1 { _ = ftruncate(fd, 0) }
            throw error
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
