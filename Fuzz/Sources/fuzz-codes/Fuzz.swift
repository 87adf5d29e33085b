import FuzzDriver
import Seer

/// Code reading on decoded images. An input that is an image file is decoded (small pixel limit);
/// anything else is taken as raw grey pixels, its first byte giving the width (16–271), so the
/// reader's own stages (binarising, finder search, sampling, error correction) see fuzzed pixels.
private let reader = CodeReader(options: CodeReader.Options(symbologies: [.qr], preset: .balanced))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCodes(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let image: GrayImage
    if ImageFormat.sniff(bytes) != nil {
        guard let decoded = try? ImageDecoder.decode(bytes: bytes, options: DecodeOptions(pixelLimit: 1 << 20)) else {
            return 0
        }
        image = decoded.gray
    } else {
        guard size > 1 else { return 0 }
        let width = 16 + Int(bytes[0])
        let height = (size - 1) / width
        guard height >= 16 else { return 0 }
        image = GrayImage(width: width, height: height, pixels: Array(bytes[1..<(1 + width * height)]))
    }
    for symbol in reader.read(image) {
        precondition(!symbol.bytes.isEmpty || symbol.text != nil)
    }
    return 0
}

/// The executable's entry point (SwiftPM names it `fuzz_codes_main`): libFuzzer's driver, running the
/// function above.
@_cdecl("fuzz_codes_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzCodes)
}
