/// One fuzzer input: the bytes and their count, as libFuzzer calls `LLVMFuzzerTestOneInput`.
public typealias FuzzTarget = @convention(c) (UnsafePointer<UInt8>, Int) -> CInt

/// Runs libFuzzer's driver over `target` with the process's arguments: each target's entry point
/// (SwiftPM names it `fuzz_NAME_main`) calls this.
public func runFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ target: FuzzTarget
) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, target)
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: FuzzTarget
) -> CInt
