import Seer
import Testing

/// `--read` and the service's `read=` are one parser with one vocabulary.
@Suite struct ScanTargetsTests {
    @Test(arguments: [
        ("codes", ScanTargets.codes), ("plates", .plates), ("codes,plates", .all), ("plates,codes", .all),
        ("all", .all), ("Codes, Plates", .all), ("code", .codes), ("plate", .plates),
    ])
    func wordsRead(text: String, expected: ScanTargets) {
        #expect(ScanTargets(parsing: text) == expected)
    }

    @Test(arguments: ["", ",", "codes,", "qr", "codes;plates", "barcodes"])
    func anythingElseIsRefused(text: String) {
        #expect(ScanTargets(parsing: text) == nil)
    }
}
