import Testing

@testable import SeerPlate

@Suite struct GrammarTests {
    let grammar = PlateGrammar.standard

    @Test func standardGrammarLoadsEveryRegion() throws {
        for region in PlateRegion.allCases {
            #expect(!grammar.formats(for: region).isEmpty, "no formats for \(region)")
        }
        let names = Set(grammar.formats.map(\.name))
        for name in ["br", "br-mercosul", "sk", "cz", "pl", "de", "fr", "it", "es", "nl-1", "uk", "us-ca", "general"] {
            #expect(names.contains(name), "missing format \(name)")
        }
    }

    @Test(arguments: [
        ("abc-1234", PlateRegion.br, "ABC1234", "br"),
        ("RIO 2A18", .br, "RIO2A18", "br-mercosul"),
        ("ba 123 cd", .eu, "BA123CD", "sk"),
        ("LN68 XKT", .eu, "LN68XKT", "uk"),
        ("1234 bcd", .eu, "1234BCD", "es"),
        ("7abc123", .us, "7ABC123", "us-ca"),
    ])
    func typedPlatesMatchTheirFormat(input: String, region: PlateRegion, canonical: String, format: String) {
        let result = grammar.normalize(input, region: region)
        #expect(result.canonical == canonical)
        #expect(result.grammar == format)
        #expect(result.region == region)
    }

    @Test func digitInLetterSlotIsSwapped() {
        // Old Brazilian plates: three letters, four digits. A typed 0 in a letter slot becomes O.
        let result = grammar.normalize("AY0 9034", region: .br)
        #expect(result.input == "AY09034")
        #expect(result.canonical == "AYO9034")
        #expect(result.grammar == "br")
        #expect(result.variants.contains("AYD9034"))
    }

    @Test func letterInDigitSlotIsSwapped() {
        let result = grammar.normalize("ABC 12S4", region: .br)
        #expect(result.canonical == "ABC1254")
        #expect(result.grammar == "br")
    }

    @Test func swapsOnlyWhereASlotDemandsThem() {
        // B fits the letter slot of a Slovak plate, so it is never turned into 8 there.
        let result = grammar.normalize("BA123CD", region: .eu)
        #expect(result.canonical == "BA123CD")
        #expect(!result.variants.contains("8A123CD"))
    }

    @Test func unknownFormatMatchesNothing() {
        let result = grammar.normalize("12", region: .br)
        #expect(result.canonical == "12")
        #expect(result.grammar == nil)
        #expect(result.region == nil)
    }

    @Test func parseErrorsNameTheLine() {
        #expect(throws: PlateGrammar.ParseError.self) { try PlateGrammar(source: "plate xx a 1 AAA") }
        do {
            _ = try PlateGrammar(source: "# ok\nconfuse O 0\nplate br x 1.0 AA[B")
            Issue.record("expected a parse error")
        } catch let error as PlateGrammar.ParseError {
            #expect(error.line == 3)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func patternsExpandRepeats() throws {
        let g = try PlateGrammar(source: "plate eu de 1.0 A{1,3}A{1,2}9{1,4}")
        let de = try #require(g.formats.first)
        #expect(de.matches("MAB1234"))
        #expect(de.matches("BX1"))
        #expect(!de.matches("1234MAB"))
        #expect(!de.matches("ABCDE12345"))
    }
}

extension GrammarTests {
    @Test func patternsMarkGapsBetweenGroups() throws {
        let g = try PlateGrammar(source: "plate br old 1.0 AAA-9999\nplate eu x 1.0 A{1,2}-99")
        let old = try #require(g.formats.first)
        #expect(old.matches("ABC1234"))
        #expect(old.breaks == [[3]])
        let x = try #require(g.formats.last)
        #expect(x.expansions.map(\.count) == [3, 4])
        #expect(x.breaks == [[1], [2]])
        for bad in ["plate br a 1.0 -AAA9", "plate br a 1.0 AAA9-", "plate br a 1.0 AA--99"] {
            #expect(throws: PlateGrammar.ParseError.self) { try PlateGrammar(source: bad) }
        }
    }
}

@Suite struct CandidateSearchTests {
    let search = CandidateSearch(grammar: .standard)

    func positions(_ text: String, confidence: Double = 0.9) -> [Position] {
        text.map { Position(options: [($0, confidence)]) }
    }

    @Test func grammarSwapsConfusableGlyphs() throws {
        // OCR read a zero and an eight where an old Brazilian plate has letters.
        let found = search.search(positions("0B89034"), region: .br, limit: 5)
        let top = try #require(found.first)
        #expect(top.text == "OBB9034")
        #expect(top.format?.name == "br")
    }

    @Test func alternativesAreSearchedBestFirst() throws {
        var p = positions("ABC1234")
        p[3] = Position(options: [("7", 0.5), ("1", 0.4)])
        let found = search.search(p, region: .br, limit: 5)
        #expect(found.map(\.text).prefix(2) == ["ABC7234", "ABC1234"])
        #expect(found[0].score > found[1].score)
    }

    @Test func strayGlyphAtAnEndIsDropped() throws {
        let found = search.search(positions("IABC1234"), region: .br, limit: 5)
        #expect(found.first?.text == "ABC1234")
        // Each character says which position it was read from: the dropped first one is skipped.
        #expect(found.first?.indices == Array(1...7))
        let kept = search.search(positions("ABC1234"), region: .br, limit: 5)
        #expect(kept.first?.indices == Array(0...6))
    }

    @Test func swapsAreCountedAgainstTheGlyphsReadFrom() throws {
        // A stray first glyph dropped: the swap count compares each character with its own
        // position (none here), not with positions shifted by the ends left out.
        let p = positions("IABC1234")
        let top = try #require(search.search(p, region: .br, limit: 5).first)
        #expect(PlateReader.swaps(top, p) == 0)
        var q = p
        q[4] = Position(options: [("I", 0.9)])  // the first digit read as I: taken as 1, one swap
        let swapped = try #require(search.search(q, region: .br, limit: 5).first)
        #expect(swapped.text == "ABC1234")
        #expect(PlateReader.swaps(swapped, q) == 1)
    }

    @Test func oAndZeroTwinIsOfferedSecond() throws {
        // A US reading with a letter O, sure of every glyph: its twin with a zero comes right after,
        // through the general format since `us-6a` wants a letter there.
        let us = search.search(positions("OSG719"), region: .us, limit: 5)
        #expect(us.map(\.text).prefix(2) == ["OSG719", "0SG719"])
        #expect(us[1].format?.name == "general")
        #expect(abs(us[1].score - us[0].score * CandidateSearch.swapFactor) < 1e-9)
        // Where only a catch-all takes the twin (Slovakia's AA999AA), it is not offered.
        let sk = search.search(positions("RK300AG"), region: .eu, limit: 5)
        #expect(sk.first?.text == "RK300AG")
        #expect(!sk.map(\.text).contains("RK3O0AG"))
    }

    @Test func gapWhereAFormatHasOneDecides() throws {
        // O/0 and I/1 drawn alike: the glyphs fit Brazil's AAA9999 (OLA1208) as well as
        // California's 9AAA999 (0LAI208). A wide gap after the third glyph is where the
        // Brazilian plate has its separator.
        var p = positions("OLAI208")
        p[0] = Position(options: [("O", 0.5), ("0", 0.45)])
        p[3] = Position(options: [("I", 0.5), ("1", 0.45)])
        let plain = try #require(search.search(p, region: nil, limit: 5).first)
        let gapped = try #require(search.search(p, region: nil, limit: 5, gaps: [2]).first)
        #expect(gapped.text == "OLA1208")
        #expect(gapped.format?.name == "br")
        #expect(gapped.score > plain.score)
        // A gap elsewhere is no evidence for it.
        let elsewhere = search.search(p, region: .br, limit: 5, gaps: [3])
        let there = search.search(p, region: .br, limit: 5, gaps: [2])
        #expect(abs(there[0].score - min(1, elsewhere[0].score * CandidateSearch.gapFactor)) < 1e-9)
    }

    @Test func twoGapsRaiseOnlyAFormatWithBoth() throws {
        // AB123CD fits Slovakia, Italy and France alike; gaps after the second and fifth glyph are
        // France's two hyphens. One of them alone is not France's layout.
        let p = positions("AB123CD")
        let none = try #require(search.search(p, region: .eu, limit: 5).first)
        let both = try #require(search.search(p, region: .eu, limit: 5, gaps: [1, 4]).first)
        #expect(both.format?.name == "fr")
        #expect(abs(both.score - min(1, none.score * CandidateSearch.gapFactor)) < 1e-9)
        let one = try #require(search.search(p, region: .eu, limit: 5, gaps: [4]).first)
        #expect(one.text == "AB123CD" && abs(one.score - none.score) < 1e-9)
        // Gaps beside a dropped end glyph are no part of the plate.
        #expect(CandidateSearch.breaks([0, 3, 6], lead: 1, count: 6) == [3])
        #expect(CandidateSearch.breaks([0, 3, 6], lead: 1, count: 7) == [3, 6])
    }

    @Test func readingOutsideEveryFormatSaysSo() throws {
        let found = search.search(positions("AB"), region: .br, limit: 5)
        let top = try #require(found.first)
        #expect(top.format == nil)
    }
}

/// The format a reading is labelled with (docs/plates.md, "Labels").
@Suite struct LabelTests {
    let search = CandidateSearch(grammar: .standard)

    func label(_ text: String, _ breaks: [Int], _ region: PlateRegion?) -> String? {
        let found = search.label(text, breaks: breaks, region: region)
        return found.format?.name ?? (found.tied.isEmpty ? nil : found.tied.map(\.name).joined(separator: "|"))
    }

    @Test func gapsNameTheEuropeanFormat() {
        // Two letters, three digits, two letters: France parts all three groups, Slovakia and
        // Italy only the first pair.
        #expect(label("AB123CD", [2, 5], .eu) == "fr")
        #expect(label("AB123CD", [2], .eu) == "it|sk")
        #expect(label("AB123CD", [], .eu) == "fr|it|sk")
        #expect(label("AB123CD", [2, 5], nil) == "fr")
        // Italy issues no I, O, Q or U.
        #expect(label("AB123CO", [2], .eu) == "sk")
        // Germany: the district, then the seals, then the rest. Both gaps seen decide; the first
        // alone (a narrow second space unseen, or a wide space after a narrow first glyph) keeps
        // Germany among the formats the text fits, it does not decide between regions.
        #expect(label("MAB1234", [1, 3], nil) == "de")
        #expect(label("MAB1234", [1], nil) == "br|de|us-7a")
        #expect(label("MAB1234", [1], .eu) == "de")
        #expect(label("MAB1234", [], nil) == "br|us-7a")
        #expect(label("THF220", [3], nil) == "de|us-6a")
        #expect(label("THF220", [3], .us) == "us-6a")
    }

    @Test func nothingThatSeparatesRegionsIsATie() {
        // Three letters, a gap, four digits: an old Brazilian plate or a US one.
        #expect(label("KVT4821", [3], nil) == "br|us-7a")
        #expect(label("KVT4821", [], nil) == "br|us-7a")
        let tie = search.label("KVT4821", breaks: [3], region: nil)
        #expect(tie.format == nil && tie.region == nil)
        // A region given decides.
        #expect(label("KVT4821", [3], .us) == "us-7a")
        #expect(label("KVT4821", [3], .br) == "br")
        // Tied formats of one region keep their region.
        #expect(search.label("AB123CD", breaks: [2], region: nil).region == .eu)
        // A catch-all of one region is no rival for another region's specific format.
        #expect(label("12ABC3", [], nil) == "nl-1")
        #expect(label("7ABC123", [], nil) == "us-ca")
        #expect(label("ABC", [], .br) == nil)
    }

    @Test func layoutIsExplainedExactlyOrInPart() throws {
        let g = try PlateGrammar(source: "plate eu x 1.0 AA-999-AA\nplate eu y 1.0 AA999AA")
        let x = try #require(g.formats.first), y = try #require(g.formats.last)
        #expect(CandidateSearch.explanation(x, expansion: 0, breaks: [2, 5]) == 2)
        #expect(CandidateSearch.explanation(x, expansion: 0, breaks: [5]) == 1)
        #expect(CandidateSearch.explanation(x, expansion: 0, breaks: [3]) == 0)
        #expect(CandidateSearch.explanation(x, expansion: 0, breaks: []) == 0)
        #expect(CandidateSearch.explanation(y, expansion: 0, breaks: [2]) == 0)
    }

    @Test func noRegionListsOnePatternTwice() {
        // Two formats of one region with the same pattern could only be told apart by a guess.
        for region in PlateRegion.allCases {
            let patterns = PlateGrammar.standard.formats(for: region).map(\.pattern)
            #expect(Set(patterns).count == patterns.count, "\(region)")
        }
    }
}
