import FuzzDriver
import Seer

/// The payload parsers: what a code's bytes become (text decoding with charset guessing), and what
/// that text becomes (GS1 Digital Link and element strings, signed tokens, charger ids).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPayload(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = TextDecoding.decode(bytes)
    let text = String(decoding: bytes, as: UTF8.self)
    _ = PayloadParser.parse(text)
    _ = GS1.parseElementString(text)
    _ = ChargerID.parseTyped(text)
    _ = ChargerID.parsePayload(text)
    return 0
}

/// The executable's entry point (SwiftPM names it `fuzz_payload_main`): libFuzzer's driver, running the
/// function above.
@_cdecl("fuzz_payload_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzPayload)
}
