import ArgumentParser
import Foundation
import Logging
import Seer
import SeerPostgres
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `--format text|json`, shared by every command that prints results.
struct FormatOption: ParsableArguments {
    @Option(name: .long, help: "Output format: text or json (JSON Lines, keys sorted).")
    var format: OutputFormat = .text
}

/// `--db PATH|URL`, shared by every command that uses the store.
struct StoreOptions: ParsableArguments {
    @Option(
        name: .long,
        help: "The database: a SQLite file, or a PostgreSQL URL postgres://user@host:port/database (default: $SEER_DB, else $XDG_DATA_HOME/seer/seer.sqlite or ~/.local/share/seer/seer.sqlite).")
    var db: String?
}

/// The store `--db` (or `SEER_DB`) names, for messages: a URL without its password, or the file.
func storeName(_ db: String?) -> String {
    let named = db ?? ProcessInfo.processInfo.environment["SEER_DB"] ?? defaultStorePath()
    return PostgresLocation.isURL(named) ? ((try? PostgresLocation(url: named))?.description ?? "a PostgreSQL database") : named
}

/// `--jobs N`, shared by every command that reads photos.
struct JobsOption: ParsableArguments {
    @Option(name: .long, help: "Photos read in parallel (default: the number of cores).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        if jobs < 1 { throw ValidationError("--jobs must be at least 1.") }
    }
}

/// `--region us|eu|br|auto`: the plate grammar region, the same in every command.
struct RegionOption: ParsableArguments {
    @Option(name: .long, help: "Plate grammar region: us, eu, br or auto (all).")
    var region: String = "auto"

    /// The grammar region (nil for all), and, where `allowCountry` is set, a country given the old
    /// way (`--region GB`, which now means `--country GB`).
    func parsed(allowCountry: Bool) throws -> (region: PlateRegion?, country: Country?) {
        if let region = PlateRegion.parse(region) { return (region, nil) }
        if allowCountry, let country = Country(rawValue: region) { return (nil, country) }
        if Country(rawValue: region) != nil {
            throw ValidationError("--region takes us, eu, br or auto; '\(region)' is a country: use --country \(region.uppercased()).")
        }
        throw ValidationError("--region takes us, eu, br or auto; '\(region)' is not one (an owner's country is --country, an ISO 3166 code such as GB).")
    }
}

/// Parses `--country CC`: an ISO 3166-1 alpha-2 code, validated (`United Kingdom` is refused).
func parseCountry(_ text: String) throws -> Country {
    do {
        return try Country.parse(text)
    } catch {
        throw ValidationError(error.message)
    }
}

/// The engine every command makes, from its options and the environment the executable reads
/// (`TESSDATA_PREFIX`); the library itself reads no environment.
enum EngineFactory {
    static func make(db: String? = nil, _ configure: (inout Engine.Configuration) -> Void = { _ in }) -> Engine {
        var configuration = Engine.Configuration()
        if let prefix = ProcessInfo.processInfo.environment["TESSDATA_PREFIX"], !prefix.isEmpty { configuration.tessdata = prefix }
        configuration.store = .named(db ?? ProcessInfo.processInfo.environment["SEER_DB"], schemes: [.postgres])
        configuration.logger = Logger(label: "seer")
        configure(&configuration)
        return Engine(configuration: configuration)
    }
}

/// One input as given on the command line: a file, or `-` for standard input.
struct Input: Sendable {
    /// The name reported (the path, or `-`).
    var name: String
    /// The path's bytes when they are not UTF-8 (see ``Inputs``), else nil.
    var raw: [UInt8]? = nil

    /// Decodes the photo: a file streams from disk, standard input from its bytes.
    func decode(_ options: DecodeOptions) throws -> DecodedImage {
        name == "-" && raw == nil ? try ImageDecoder.decode(try StandardInput.shared.bytes(), options: options)
            : try withPath { try ImageDecoder.decode(contentsOf: $0, options: options) }
    }

    /// The bytes of the photo: a file's once its first bytes show an image format Seer decodes;
    /// standard input is read once, by whichever input asks first.
    func bytes(limit: Int) throws -> [UInt8] {
        if name == "-", raw == nil { return try StandardInput.shared.bytes() }
        return try withPath { try ImageDecoder.readImage(contentsOf: $0, limit: limit) }
    }
}

/// All of standard input, read once.
final class StandardInput: Sendable {
    static let shared = StandardInput()
    private let data = Mutex<[UInt8]?>(nil)

    func bytes() throws -> [UInt8] {
        try data.withLock { data in
            if let data { return data }
            let read = try readStandardInput()
            data = read
            return read
        }
    }
}

extension Inputs {
    /// The inputs for command-line paths: directories expanded (one rule for every command), `-` kept.
    static func inputs(_ paths: [String]) -> [Input] {
        entries(paths)
    }
}

/// Runs work over items on `jobs` threads and hands each result to `emit` in the items' order, as
/// soon as it and every earlier one is done (so output streams, in order, whatever the timing).
enum OrderedRunner {
    static func run<Item: Sendable, Result: Sendable>(
        _ items: [Item], jobs: Int, work: @escaping @Sendable (Int, Item) -> Result, emit: @escaping @Sendable (Int, Result) -> Void
    ) {
        let count = items.count
        guard count > 0 else { return }
        let state = Mutex<(results: [Result?], printed: Int)>((Array(repeating: nil, count: count), 0))
        let next = Atomic<Int>(0)
        let worker: @Sendable () -> Void = {
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                if index >= count { return }
                let result = work(index, items[index])
                state.withLock { s in
                    s.results[index] = result
                    while s.printed < count, let ready = s.results[s.printed] {
                        emit(s.printed, ready)
                        s.results[s.printed] = nil
                        s.printed += 1
                    }
                }
            }
        }
        let workers = min(max(1, jobs), count)
        if workers == 1 {
            worker()
        } else {
            let group = DispatchGroup()
            for _ in 0..<workers { DispatchQueue.global().async(group: group, execute: worker) }
            group.wait()
        }
    }
}

/// The one way every command prints a failure: a JSON line `{"file","error":{"code","message"}}`
/// on standard output in JSON, `seer: FILE: CODE: MESSAGE` on standard error in text.
enum Failures {
    static func print(_ failure: FileFailure, format: OutputFormat) {
        switch format {
        case .json: Console.jsonLine(failure)
        case .text:
            let place = failure.file.isEmpty ? "" : "\(failure.file): "
            Console.err("seer: \(place)\(failure.error.code): \(failure.error.message)")
        }
    }

    static func print(_ error: any Error, file: String, format: OutputFormat) {
        print(FileFailure(file: file, error: error), format: format)
    }

    /// Prints the failure and ends the command with `status`.
    static func exit(_ error: any Error, file: String, format: OutputFormat, status: Int32 = 1) -> Never {
        print(error, file: file, format: format)
        Foundation.exit(status)
    }
}

extension Engine {
    /// The store, or the command ends with the failure printed (exit 1).
    func storeOrExit(format: OutputFormat) -> any SeerStore {
        do {
            return try store()
        } catch {
            Failures.exit(error, file: "", format: format)
        }
    }
}
