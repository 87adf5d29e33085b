import FuzzDriver
import Seer

/// Image decoding (PNG, JPEG, HEIC, WebP) from arbitrary bytes: header only, then a full decode with
/// and without colour, at a small pixel limit so that inputs cannot ask for large allocations.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImage(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    _ = try? ImageDecoder.info(of: bytes)
    let options = DecodeOptions(pixelLimit: 1 << 22, scale: 1 << (size % 4), includeRGB: size % 3 == 0)
    if let image = try? ImageDecoder.decode(bytes: bytes, options: options) {
        precondition(image.gray.width > 0 && image.gray.height > 0)
        precondition(image.gray.count == image.gray.width * image.gray.height)
        if let rgb = image.rgb { precondition(rgb.width == image.gray.width && rgb.height == image.gray.height) }
    }
    return 0
}

/// The executable's entry point (SwiftPM names it `fuzz_image_main`): libFuzzer's driver, running the
/// function above.
@_cdecl("fuzz_image_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzImage)
}
