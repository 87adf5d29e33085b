import SeerImage

/// A glyph classifier's weight file (`.sgc`, as `scripts/plate-glyphs/train.py` writes it) read from
/// bytes a caller supplies and, when it loads, run on one glyph: the entry point the libFuzzer target
/// `fuzz-plate-model` uses, so that a damaged or hostile file is shown to be refused, not to crash.
@_spi(Fuzzing) public enum GlyphModelFile {
    /// The class probabilities the model in `bytes` gives the dark pixels (below 128) of `glyph` as
    /// its mask, or with `grey` the grey glyph itself; nil when the bytes are not a glyph model.
    public static func classify(_ bytes: [UInt8], grey: Bool, glyph: GrayImage) -> [Float]? {
        guard let model = GlyphClassifier(bytes: bytes, input: grey ? .grey : .mask) else { return nil }
        let mask = GlyphMask(width: glyph.width, height: glyph.height, bits: glyph.pixels.map { $0 < 128 ? 1 : 0 })
        return model.probabilities(mask, crop: glyph)
    }
}
