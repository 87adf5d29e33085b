import ArgumentParser
import Seer

@main
struct SeerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seer",
        abstract: "Reads QR codes, barcodes and licence plates from photos, and verifies what it read.",
        discussion: """
            Data goes to standard output, diagnostics to standard error. Exit codes: 0 success, \
            1 an input failed, 2 nothing was read (scan), 64 usage error.
            """,
        version: seerVersion,
        subcommands: [Info.self, Decode.self, Scan.self, Plate.self, Verify.self, History.self, Stats.self, Registry.self, ChargerCommand.self]
    )

    /// `seer decode` with plain arguments skips the general parser: in a binary this size, its
    /// reflection over the command types costs about 2 ms of a process's start, a tenth of decoding
    /// a reduced photo. Anything else (help, errors, other commands) goes through the parser.
    static func main() {
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
