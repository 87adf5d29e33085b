import FuzzDriver
import Seer

/// Plate grammars: normalising fuzzed plate text under every region, and parsing fuzzed grammar
/// sources (then normalising with what they define).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlateGrammar(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let standard = PlateGrammar.standard
    for region in [nil] + PlateRegion.allCases.map(Optional.some) {
        let normalized = standard.normalize(text, region: region)
        _ = standard.formats(for: region).map { $0.matches(normalized.canonical) }
    }
    if let grammar = try? PlateGrammar(source: text) {
        _ = grammar.normalize(String(text.prefix(16)), region: nil)
    }
    return 0
}

/// The executable's entry point (SwiftPM names it `fuzz_plate_grammar_main`): libFuzzer's driver, running the
/// function above.
@_cdecl("fuzz_plate_grammar_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzPlateGrammar)
}
