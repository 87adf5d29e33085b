import ArgumentParser
import Seer

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Print each image's format, displayed size and EXIF orientation.",
        discussion: """
            Every file is decoded in full (JPEG at 1/8 scale, which still reads all of its data), so a \
            truncated or corrupt file is reported here rather than later. A directory stands for every \
            file below it.

            JSON: one object per file per line, {"file","format","width","height","orientation"}, or \
            {"file","error":{"code","message"}} for a file that failed; the command goes on with the next.

            Exit codes: 0 all files read, 1 some file failed, 64 usage error.
            """)

    @Option(name: .long, help: "Output format: text or json (JSON Lines).")
    var format: OutputFormat = .text

    @Option(name: .long, help: "Refuse images with more pixels than this.")
    var pixelLimit: Int = 100_000_000

    @Argument(help: "Image files or directories (PNG or JPEG, recognised by content).")
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("Give at least one image file.") }
        if pixelLimit <= 0 { throw ValidationError("--pixel-limit must be positive.") }
    }

    func run() throws {
        var failed = false
        for file in Inputs.expand(files) {
            do {
                let decoded = try ImageDecoder.decode(
                    contentsOf: file, options: DecodeOptions(pixelLimit: pixelLimit, scale: 8, applyOrientation: false))
                let report = InfoReport(file: file, info: decoded.info)
                switch format {
                case .json: Console.jsonLine(report)
                case .text:
                    Console.out(
                        "\(file): \(report.format.rawValue) \(report.width)x\(report.height) orientation \(report.orientation)")
                }
            } catch let error as ImageError {
                failed = true
                switch format {
                case .json: Console.jsonLine(FileFailure(file: file, error))
                case .text: Console.err("seer: \(file): \(error.code.rawValue): \(error.message)")
                }
            }
        }
        if failed { throw ExitCode(1) }
    }
}
