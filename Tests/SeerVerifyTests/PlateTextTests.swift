import SeerPlateText
import SeerVerify
import Testing

/// Typed plates, countries and regions: what a person types is checked once, the same way everywhere.
@Suite struct PlateTextTests {
    func refusal(_ text: String) -> PlateTextError? {
        do {
            _ = try PlateText.validate(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func separatorsCaseAndAccentsAreTheCanonicalForm() throws {
        #expect(try PlateText.validate(" ab-12 cde ") == "AB12CDE")
        #expect(try PlateText.validate("LN68·XKT") == "LN68XKT")
        #expect(try PlateText.validate("M-SR 1234") == "MSR1234")
        // Accented Latin letters are the letter a plate reader sees, not dropped.
        #expect(try PlateText.validate("ÄÖ-ÜÉ 12") == "AOUE12")
        #expect(PlateText.canonical("ÄÖ-ÜÉ 12") == "AOUE12")
    }

    @Test(arguments: [
        ("АB12CDE", PlateTextError.Code.lookAlike, "Cyrillic"),  // Cyrillic А (U+0410)
        ("AB12СDE", .lookAlike, "Latin 'C'"),  // Cyrillic С
        ("ΑΒ12CDE", .lookAlike, "Greek"),  // Greek Alpha, Beta
        ("AB12😀CDE", .emoji, "emoji"),
        ("AB12\u{7}CDE", .controlCharacter, "control"),
        ("AB12\u{200B}CDE", .controlCharacter, "control"),  // zero-width space
        ("AB#12", .symbol, "symbol"),
        ("京A12345", .notLatin, "A–Z"),
        ("AB12٣", .notLatin, "A–Z"),  // an Arabic-Indic digit
        ("A", .tooShort, "at least 2"),
        ("ABCDEFGHIJK", .tooLong, "at most 10"),
        ("  --  ", .empty, "no letters"),
    ])
    func refusedSayingWhy(text: String, code: PlateTextError.Code, words: String) throws {
        let error = try #require(refusal(text), "\(text) was accepted")
        #expect(error.code == code)
        #expect(error.message.contains(words), "\(error.message)")
    }

    @Test func theResolverChecksTypedPlates() {
        struct Nobody: PlateDirectory {
            func recipients(forPlates plates: [String], country: Country?) -> [String: [String]] { [:] }
        }
        #expect(throws: PlateTextError.self) { try PlateResolver().resolve("AB12😀CDE", in: Nobody()) }
        #expect(throws: PlateTextError.self) { try PlateResolver().resolve("Ö", in: Nobody()) }
    }

    @Test func oneConfusionTableForGrammarsAndVariants() {
        // Every partner of the generic variants comes from the one table.
        let variants = ConfusionVariants().variants(of: "B0", region: nil)
        #expect(variants.contains("80") && variants.contains("BO") && variants.contains("8O"))
        #expect(PlateConfusions.partners["O"] == ["0"])
        #expect(PlateConfusions.partners["0"] == ["O", "D", "Q", "U"])
    }

    @Test func countriesAreISOCodes() throws {
        #expect(try Country.parse("gb").rawValue == "GB")
        #expect(try Country.parse("UK").rawValue == "GB")
        #expect(Country.assigned.count == 249)
        #expect(throws: CountryError.self) { try Country.parse("United Kingdom") }
        #expect(throws: CountryError.self) { try Country.parse("XY") }
        #expect(throws: CountryError.self) { try Country.parse("") }
    }

    @Test func regionsAreGrammarRegions() {
        #expect(PlateRegion.parse("EU") == .some(.eu))
        #expect(PlateRegion.parse("auto") == .some(nil))
        #expect(PlateRegion.parse("GB") == nil)
        #expect(PlateRegion.parse("United Kingdom") == nil)
    }
}
