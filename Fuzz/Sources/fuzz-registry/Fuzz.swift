import Foundation
import FuzzDriver
import Seer

#if canImport(Glibc)
import Glibc
#endif

/// Registry import: fuzzed JSON files into a real SQLite store (one temporary database per fuzzing
/// process). A file is refused with an error or imported; neither may crash or corrupt the store.
private let store: SQLiteStore = {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("seer-fuzz-registry-\(getpid()).sqlite").path
    return try! SQLiteStore(path: path)
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRegistry(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let file = Data(bytes: data, count: size)
    _ = try? store.importRegistry([(name: "fuzz.json", data: file)])
    return 0
}

/// The executable's entry point (SwiftPM names it `fuzz_registry_main`): libFuzzer's driver, running the
/// function above.
@_cdecl("fuzz_registry_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzRegistry)
}
