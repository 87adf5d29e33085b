/// Where photo reading plugs into verification and charger lookup.
extension Engine {
    /// Reads the codes in a photo, for `seer verify PATH` and `seer charger PATH`.
    ///
    /// The photo is decoded (so a broken file is reported as such); reading codes from it is the code
    /// reader's job, which this build does not include yet: it throws `noCodeReader`. Pass decoded
    /// payloads with `--payload` / `--payload-file` meanwhile.
    public func readCodesForVerification(contentsOf path: String) throws -> [CodeReading] {
        _ = try decode(contentsOf: path)
        throw StoreError(
            code: "noCodeReader",
            message: "This build cannot read codes from photos yet; pass the decoded text with --payload or --payload-file.")
    }
}
