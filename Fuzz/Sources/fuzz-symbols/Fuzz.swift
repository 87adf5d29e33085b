import Foundation
import FuzzDriver
import Logging
import Seer
@_spi(Fuzzing) import SeerQR

/// The decoders of the matrix symbologies, without an image: the first byte picks one (DataMatrix
/// data codewords and its Reed–Solomon check, PDF417 over GF(929) and its high-level decoding,
/// Aztec's mode message, data layers and character modes, Micro QR grids and data streams, the GS1
/// element string check, the GF(2^m) corrector, MaxiCode grids), the next ones its parameters (`DecoderInput`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSymbols(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = DecoderInput(bytes: Array(UnsafeBufferPointer(start: data, count: size)))
    // The byte form is the input's own: written back, it reads as the same input.
    precondition(DecoderInput(bytes: input.bytes) == input)
    _ = input.decode()
    return 0
}

/// Seeds from real symbols: reads each image with every symbology and writes each input the
/// readers traced handing to a decoder (`decoder input <hex>`), and each GS1 reading, to `directory`.
func writeSeeds(to directory: String, images: [String]) -> CInt {
    let lines = TraceLines()
    var logger = Logger(label: "seer.codes.seeds") { _ in lines }
    logger.logLevel = .trace
    let reader = CodeReader(options: CodeReader.Options(preset: .thorough), logger: logger)
    var seeds: Set<[UInt8]> = []
    for path in images {
        guard let image = try? ImageDecoder.decode(contentsOf: path) else { continue }
        for symbol in reader.read(image.gray) where symbol.isGS1 {
            seeds.insert(DecoderInput.gs1(bytes: symbol.bytes).bytes)
        }
    }
    for line in lines.taken() {
        guard let range = line.range(of: "decoder input ") else { continue }
        if let bytes = DecoderInput.bytes(hex: line[range.upperBound...]) { seeds.insert(bytes) }
    }
    for (k, seed) in seeds.sorted(by: { $0.lexicographicallyPrecedes($1) }).enumerated() {
        guard FileManager.default.createFile(atPath: "\(directory)/symbol-\(k)", contents: Data(seed)) else {
            print("cannot write \(directory)/symbol-\(k)")
            return 1
        }
    }
    print("\(seeds.count) seeds from \(images.count) images")
    return 0
}

/// Keeps the messages logged to it.
final class TraceLines: LogHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        lock.withLock { lines.append(event.message.description) }
    }
    func taken() -> [String] { lock.withLock { lines } }
}

/// The executable's entry point (SwiftPM names it `fuzz_symbols_main`): `--write-seeds DIR IMAGE…`
/// writes seeds; anything else is libFuzzer's driver, running the function above.
@_cdecl("fuzz_symbols_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    let arguments = (0..<Int(argc)).map { String(cString: argv![$0]!) }
    if arguments.count >= 3, arguments[1] == "--write-seeds" {
        return writeSeeds(to: arguments[2], images: Array(arguments.dropFirst(3)))
    }
    return runFuzzer(argc, argv, fuzzSymbols)
}
