import Foundation
import SeerVerify
import Testing

@Suite struct ParsingTests {
    @Test func base64URLRoundTripsAndIsStrict() {
        for length in 0..<70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
        #expect(Base64URL.decode("AQ") == [1])
        #expect(Base64URL.decode("AR") == nil, "non-zero unused bits")
        #expect(Base64URL.decode("AQ==") == nil, "padding")
        #expect(Base64URL.decode("A+8") == nil, "not URL-safe")
        #expect(Base64URL.decode("A") == nil, "impossible length")
    }

    @Test(arguments: ["12345670", "036000291452", "4006381333931", "09506000134352"])
    func validGTINs(_ gtin: String) throws {
        let normal = try GS1.normalizeGTIN(gtin).get()
        #expect(normal.count == 14 && normal.hasSuffix(gtin))
    }

    @Test(arguments: ["12345671", "4006381333932", "09506000134353", "0950600013435", "ABCDEFGH"])
    func invalidGTINs(_ gtin: String) {
        #expect(throws: PayloadIssue.self) { try GS1.normalizeGTIN(gtin).get() }
    }

    @Test func digitalLinkPathAndQuery() throws {
        let parsed = PayloadParser.parse("https://id.example.com/shop/01/9506000134352/10/LOT%2F7/21/AB%2BC?17=271231&foo=bar")
        guard case .product(let code) = parsed else { Issue.record("not a product: \(parsed)"); return }
        #expect(code.format == .digitalLink)
        #expect(code.gtin == "09506000134352")
        #expect(code.lot == "LOT/7")
        #expect(code.serial == "AB+C")
        #expect(code.expiry == "271231")
        #expect(code.signed == nil)
    }

    @Test(arguments: [
        ("https://id.example.com/01/09506000134352/21/S1/10/L1", "badPath"),
        ("https://id.example.com/01/09506000134353/21/S1", "badCheckDigit"),
        ("https://id.example.com/01/09506000134352/99/S1", "badPath"),
        ("https://id.example.com/01/09506000134352/21", "badPath"),
        ("https://id.example.com/01/09506000134352?17=2712", "badLength"),
        ("https://id.example.com/01/09506000134352/21/S%ZZ", "badEscape"),
    ])
    func brokenDigitalLinks(_ uri: String, _ code: String) {
        guard case .invalid(let issue, let signed) = PayloadParser.parse(uri) else {
            Issue.record("expected invalid for \(uri)")
            return
        }
        #expect(issue.code == code)
        #expect(!signed)
    }

    @Test func elementStringWithSymbologyIdentifierAndSeparators() throws {
        let text = "]Q3010950600013435217271231" + "10LOT7\u{1D}21SER 9".replacingOccurrences(of: " ", with: "")
        guard case .product(let code) = PayloadParser.parse(text) else { Issue.record("not a product"); return }
        #expect(code.format == .elementString)
        #expect(code.gtin == "09506000134352")
        #expect(code.expiry == "271231")
        #expect(code.lot == "LOT7")
        #expect(code.serial == "SER9")
        // Leading FNC1 and ]C1 as other readers report them.
        guard case .product(let other) = PayloadParser.parse("]C1\u{1D}0109506000134352\u{1D}21X") else {
            Issue.record("not a product")
            return
        }
        #expect(other.serial == "X")
    }

    @Test func otherContentIsNotAProductCode() {
        for text in ["hello world", "https://example.com/about", "WIFI:S:home;T:WPA;P:secret;;", "123456", ""] {
            #expect(PayloadParser.parse(text) == .notAProductCode, "\(text)")
        }
    }

    @Test func bareGTINs() {
        guard case .product(let code) = PayloadParser.parse("4006381333931") else { Issue.record("not a product"); return }
        #expect(code.format == .gtin && code.gtin == "04006381333931")
    }

    @Test func signedFormsCarryTheirSignedBytes() throws {
        let fields = CodeIssuer.Fields(gtin: Fixture.serum, serial: "S1001", lot: "L1", expiry: "271231")
        let link = try CodeIssuer.digitalLink(fields, key: Fixture.acme)
        guard case .product(let code) = PayloadParser.parse(link), let signed = code.signed else { Issue.record("unsigned"); return }
        #expect(signed.keyID == "acme-2025")
        #expect(String(decoding: signed.message, as: UTF8.self) + "&8030=" + Base64URL.encode(signed.signature) == link)

        let element = try CodeIssuer.elementString(fields, key: Fixture.acme)
        guard case .product(let elementCode) = PayloadParser.parse(element), let elementSigned = elementCode.signed else {
            Issue.record("unsigned")
            return
        }
        #expect(elementCode.serial == "S1001" && elementCode.lot == "L1" && elementSigned.keyID == "acme-2025")

        let token = try CodeIssuer.jws(fields, key: Fixture.acmeP256)
        guard case .product(let tokenCode) = PayloadParser.parse(token), let tokenSigned = tokenCode.signed else {
            Issue.record("unsigned")
            return
        }
        #expect(tokenSigned.algorithm == .es256 && tokenCode.serial == "S1001")
    }
}

@Suite struct LookalikeTests {
    @Test func textWithSeparatorsButNoAIsIsNotAProductCode() {
        #expect(PayloadParser.parse("hello\u{1D}world") == .notAProductCode)
        #expect(PayloadParser.parse("hello.world.this-is-just-a-long-dotted-name-for-a-test") == .notAProductCode)
    }
}
