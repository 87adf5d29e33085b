import Testing

@testable import SeerQR

@Suite("GS1 element strings a linear code may report")
struct GS1SyntaxTests {
    @Test(
        "well-formed element strings pass",
        arguments: [
            "0104412345678909",  // GTIN-14 with its check digit
            "0100012345678905\u{1D}10ABC123\u{1D}15991231",  // a GS after a variable field
            "10123456A1234A\u{1D}15991231",
            "01000123456789051719123110LOT-7",  // fixed fields need no GS
            "\u{1D}3103001750",  // a leading FNC1 as GS, then a measure
            "8030SIGNATURE",
        ])
    func wellFormed(_ text: String) {
        #expect(GS1Syntax.isWellFormed(Array(text.utf8)))
    }

    @Test(
        "misreads that break the shape are refused",
        arguments: [
            "10123456A1234A\u{1D}1235KA",  // AI 12 (a date) with letters and too few digits
            "0104412345678908",  // a GTIN whose check digit fails
            "01044123456789",  // a GTIN cut short
            "1512",  // a date cut short
            "AB1234",  // no AI
            "10",  // an AI without a value
            "",
        ])
    func malformed(_ text: String) {
        #expect(!GS1Syntax.isWellFormed(Array(text.utf8)))
    }
}
