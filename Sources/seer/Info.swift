import ArgumentParser
import Seer
import Synchronization

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Print each image's format, displayed size and EXIF orientation.",
        discussion: """
            Only the headers are read: a 100-megapixel photo costs what a small one does. With --check \
            every file is also decoded (JPEG at 1/8 scale, which still reads all of its data; within \
            the decoders' work budget), so a truncated or corrupt file is reported here rather than \
            later. PATH is an image file, a directory (every photo below it, recursively) or - for \
            standard input.

            JSON: one object per file per line, {"file","format","width","height","orientation", \
            "storedWidth","storedHeight"}, or {"file","error":{"code","message"}} for a file that failed; \
            the command goes on with the next.

            Exit codes: 0 all files read, 1 some file failed, 64 usage error.
            """)

    @OptionGroup var output: FormatOption
    @OptionGroup var jobs: JobsOption

    @Option(name: .long, help: "Refuse images with more pixels than this.")
    var pixelLimit: Int = 100_000_000

    @Flag(name: .long, help: "Also decode each image, to report truncated or corrupt data.")
    var check = false

    @Argument(help: "Image files (PNG, JPEG, HEIC or WebP, recognised by content), directories, or - for standard input.")
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("Give at least one image file.") }
        if pixelLimit <= 0 { throw ValidationError("--pixel-limit must be positive.") }
    }

    func run() throws {
        let options = DecodeOptions(pixelLimit: pixelLimit, scale: 8, applyOrientation: false)
        let format = output.format
        let failed = Mutex(false)
        OrderedRunner.run(Inputs.inputs(files), jobs: jobs.jobs) { _, input -> Result<InfoReport, FileFailure> in
            do {
                let info =
                    check
                    ? try input.decode(options).info
                    : input.name == "-"
                        ? try ImageDecoder.info(of: try input.bytes(limit: Int.max), pixelLimit: pixelLimit)
                        : try input.withPath { try ImageDecoder.info(contentsOf: $0, pixelLimit: pixelLimit) }
                return .success(InfoReport(file: input.name, info: info))
            } catch {
                return .failure(FileFailure(file: input.name, error: error))
            }
        } emit: { _, result in
            switch result {
            case .success(let report):
                switch format {
                case .json: Console.jsonLine(report)
                case .text:
                    Console.out("\(report.file): \(report.format.rawValue) \(report.width)x\(report.height) orientation \(report.orientation)")
                }
            case .failure(let failure):
                failed.withLock { $0 = true }
                Failures.print(failure, format: format)
            }
        }
        if failed.withLock({ $0 }) { throw ExitCode(1) }
    }
}
