import ArgumentParser
import CSeerShims
import Logging
import Seer

#if canImport(Glibc)
import Glibc
#endif

@main
struct SeerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seer",
        abstract: "Reads QR codes, barcodes and licence plates from photos, and verifies what it read.",
        discussion: """
            Data goes to standard output, diagnostics to standard error. Every command that reads photos takes \
            files, directories (every photo below them, recursively) and - for standard input. Exit codes: \
            0 success, 1 an input failed, 2 nothing was read (scan, plate read) or not resolved, 64 usage error.
            """,
        version: seerVersion,
        subcommands: [
            Info.self, Decode.self, Scan.self, BenchCommand.self, Plate.self, Verify.self, History.self, Report.self, Stats.self, Registry.self,
            User.self, ChargerCommand.self,
            Serve.self, APIKeyCommand.self, DatabaseCommand.self,
        ]
    )

    /// `seer decode` with plain arguments skips the general parser: in a binary this size, its
    /// reflection over the command types costs about 2 ms of a process's start, a tenth of decoding
    /// a reduced photo. Anything else (help, errors, other commands) goes through the parser.
    static func main() {
        // A photo's buffers (the decoded grey image, its levels and binarisations) are megabytes
        // each, made and freed for every photo. By default glibc maps each such block on its own and
        // returns it on free (its threshold rises only to the largest block freed so far), and hands
        // a heap's free top back past 128 KB, so every photo's buffers came back as fresh pages the
        // kernel zeroes on first touch: 137 000 page faults over the 272 qr-boofcv photos at `fast`,
        // 8 % of the processor time in the kernel. Blocks of up to 32 MB (glibc's largest setting)
        // kept in the heap, and up to 128 MB left free at its top, are reused instead: 10 000 faults,
        // the peak resident set within 1 MB.
        _ = seer_keep_freed_buffers(32 << 20, 128 << 20)
        // Diagnostics go to standard error through swift-log; SEER_LOG=debug (or trace, info, …)
        // shows the engine's, warnings only by default.
        LoggingSystem.bootstrap { label in
            var handler = StandardErrorLogHandler(label: label)
            handler.logLevel = getenv("SEER_LOG").flatMap { Logger.Level(rawValue: String(cString: $0)) } ?? .warning
            return handler
        }
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "decode", let decode = Decode.fromPlainArguments(arguments.dropFirst()) {
            do {
                try decode.run()
            } catch {
                exit(withError: error)
            }
            return
        }
        main(arguments)
    }
}
