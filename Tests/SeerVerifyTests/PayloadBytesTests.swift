import Foundation
@testable import SeerVerify
import Testing

/// The byte-level tests `PayloadParser.parse` makes before its character-level ones: each must
/// answer as the character-level test it stands for, or pass on every payload that test accepts.
@Suite struct PayloadBytesTests {
    static let samples = [
        "", "\r\n", "\n\nhttp://x\r\n", "\r\nHTTPS://id.example.com/01/09506000134352/21/S1\r\n", "hTtP://a", "ｈttp://a",
        "İhttp://a", "http:/", "https:", "e\u{301}yJhbGciOi", "\u{1D}0109506000134352", "]C10109506000134352",
        "0109506000134352", "01", "0", "]", "abc/01/x", "kid=4", "8030=xyz", "caf\u{E9}\r", "\r\u{301}x\n", "\n\u{301}",
        "line one\r\nline two", "\u{1F600}\n",
    ]

    @Test(arguments: samples) func lineBreaksAreTrimmedAsFoundationTrimsThem(_ text: String) {
        #expect(PayloadParser.trimmingLineBreaks(text) == text.trimmingCharacters(in: CharacterSet(charactersIn: "\r\n")))
    }

    @Test(arguments: samples) func schemesAreMatchedAsLowerCasedText(_ text: String) {
        let trimmed = PayloadParser.trimmingLineBreaks(text)
        #expect(PayloadParser.hasASCIIPrefixIgnoringCase(trimmed.utf8, "http://") == trimmed.lowercased().hasPrefix("http://"))
        #expect(PayloadParser.hasASCIIPrefixIgnoringCase(trimmed.utf8, "https://") == trimmed.lowercased().hasPrefix("https://"))
    }

    @Test(arguments: samples) func byteTestsPassWheneverTheCharacterTestsDo(_ text: String) {
        let bytes = text.utf8
        if PayloadParser.looksLikeElementString(text) { #expect(PayloadParser.mayBeElementString(bytes)) }
        if PayloadParser.looksLikeBrokenDigitalLink(text) {
            #expect(PayloadParser.contains(bytes, "/01/") || PayloadParser.contains(bytes, "8030=") || PayloadParser.contains(bytes, "kid="))
        }
        #expect(PayloadParser.contains(bytes, "eyJ") == (text.range(of: "eyJ") != nil))
        #expect(PayloadParser.contains(bytes, "/01/") == (text.range(of: "/01/") != nil))
    }

    @Test(arguments: [
        "123456", " 654321\n", "https://charge.example/cp/123456", "https://charge.example/?id=999999&x=1", "evse:100000",
        "https://charge.example/station/12345", "012345", "https://charge.example/a/1234567", "12 34 56", "١٢٣٤٥٦",
    ])
    func everyChargerIDFoundIsASixDigitRun(_ payload: String) {
        if case .success = ChargerID.parsePayload(payload) { #expect(ChargerID.mayHoldID(payload)) }
        #expect(ChargerID.mayHoldID(payload) == (payload.utf8.count >= 6 && payload.contains(/[0-9]{6}/)))
    }

    @Test func aCodeWithLineBreaksAndAnUpperCaseSchemeIsStillAProductCode() {
        guard case .product(let code) = PayloadParser.parse("\r\nHTTPS://id.example.com/01/09506000134352/21/S1\r\n") else {
            Issue.record("not read as a product code")
            return
        }
        #expect(code.gtin == "09506000134352" && code.serial == "S1")
        #expect(PayloadParser.parse("0109506000134352") != .notAProductCode, "an element string with no separator")
        #expect(PayloadParser.parse("\n09506000134352\n") != .notAProductCode, "a GTIN between line breaks")
    }
}
