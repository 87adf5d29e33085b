import FuzzDriver
import Seer
@_spi(Fuzzing) import SeerPlate

/// The plate models' weight files: bytes to the sequence recogniser's loader (`plate-ctc.spr`) and
/// the glyph classifiers' (`.sgc`, read as a mask model and as a grey one). A loader must refuse
/// bytes that are not its file; a model it accepts runs once on a small fixed grey image and must
/// give one probability per class.
private let row: GrayImage = GrayImage(width: 96, height: 40) { x, y in
    // Two dark bars on light, like glyph strokes.
    (x / 6) % 4 == 1 && y > 6 && y < 34 ? 30 : 220
}
private let glyph: GrayImage = GrayImage(width: 20, height: 28) { x, y in x > 6 && x < 13 ? 20 : 230 }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlateModel(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let recognizer = SequenceRecognizer(bytes: bytes) {
        for column in recognizer.columns(row) { precondition(column.count == recognizer.classes.count + 1) }
    }
    for grey in [false, true] {
        if let p = GlyphModelFile.classify(bytes, grey: grey, glyph: glyph) { precondition(!p.isEmpty) }
    }
    return 0
}

/// The executable's entry point (SwiftPM names it `fuzz_plate_model_main`): libFuzzer's driver,
/// running the function above.
@_cdecl("fuzz_plate_model_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzPlateModel)
}
