import Testing

@testable import SeerPlate

/// What a plate shows beside its characters, and how it narrows a tie of formats (docs/plates.md,
/// "Labels"). The rendered scenes that show a cue are read in `ReaderTests`.
@Suite struct PlateCueTests {
    let search = CandidateSearch(grammar: .standard)

    func names(_ label: FormatLabel) -> String? {
        label.format?.name ?? (label.tied.isEmpty ? nil : label.tied.map(\.name).joined(separator: "|"))
    }

    @Test func aCueNarrowsATieAndNothingElse() {
        let tie = search.label("KVT4821", breaks: [3], region: nil)
        #expect(names(tie) == "br|us-7a")
        #expect(names(tie.narrowed(by: .region(.us))) == "us-7a")
        #expect(names(tie.narrowed(by: .region(.br))) == "br")
        #expect(tie.narrowed(by: .region(.br)).region == .br)
        // A cue that allows none of the tied formats, or no cue, leaves the tie as it was.
        #expect(tie.narrowed(by: .country("fr")) == tie)
        #expect(tie.narrowed(by: .region(.eu)) == tie)
        #expect(tie.narrowed(by: nil) == tie)
        // A decided label stays decided, whatever the cue.
        let decided = search.label("AB123CD", breaks: [2, 5], region: .eu)
        #expect(names(decided) == "fr")
        #expect(decided.narrowed(by: .country("sk")) == decided)
        // An EU band's code picks its country's formats among the tied ones.
        let german = search.label("MAB1234", breaks: [1], region: nil)
        #expect(names(german) == "br|de|us-7a")
        #expect(names(german.narrowed(by: .country("de"))) == "de")
        #expect(names(german.narrowed(by: .region(.eu))) == "de")
        let slovak = search.label("AB123CD", breaks: [2], region: .eu)
        #expect(names(slovak.narrowed(by: .country("sk"))) == "sk")
        #expect(names(slovak.narrowed(by: .country("it"))) == "it")
        // A code of a country whose formats all tie keeps them tied among themselves.
        let dutch = FormatLabel(format: nil, tied: PlateGrammar.standard.formats.filter { ["nl-1", "nl-2", "uk"].contains($0.name) })
        #expect(names(dutch.narrowed(by: .country("nl"))) == "nl-1|nl-2")
    }

    @Test func bandCodesNameTheirCountries() {
        #expect(PlateCue.country(inBand: "D") == "de")
        #expect(PlateCue.country(inBand: "SK") == "sk")
        #expect(PlateCue.country(inBand: "GB") == "uk")
        #expect(PlateCue.country(inBand: "DD") == nil)
        #expect(PlateCue.country(inBand: "") == nil)
        // Every code names formats the grammar has.
        let countries = Set(PlateGrammar.standard.formats.filter { $0.region == .eu }.map { $0.name.split(separator: "-")[0] })
        for name in PlateCue.bandCodes.values { #expect(countries.contains(Substring(name)), "\(name)") }
    }

    @Test func linesOfSmallTextNameTheirRegion() {
        #expect(PlateCue.region(inLine: "TEXAS") == .us)
        #expect(PlateCue.region(inLine: "PENNSYLVANIA") == .us)
        // One letter misread, or the name among other words (a slogan, a website).
        #expect(PlateCue.region(inLine: "TEKAS") == .us)
        #expect(PlateCue.region(inLine: "VISITFLORIDACOM") == .us)
        // Brazil: the country's name, or a state code and a city.
        #expect(PlateCue.region(inLine: "BRASIL") == .br)
        #expect(PlateCue.region(inLine: "SPSAOPAULO") == .br)
        #expect(PlateCue.region(inLine: "RJRIODEJANEIRO") == .br)
        // Under the characters only a state's name counts: a dealer's frame prints there.
        #expect(PlateCue.region(inLine: "SPSAOPAULO", above: false) == nil)
        #expect(PlateCue.region(inLine: "BRASIL", above: false) == nil)
        #expect(PlateCue.region(inLine: "TEXAS", above: false) == .us)
        // Too short, or no state code first: nothing.
        #expect(PlateCue.region(inLine: "SP") == nil)
        #expect(PlateCue.region(inLine: "XXCITYNAME") == nil)
        #expect(PlateCue.region(inLine: "") == nil)
        #expect(PlateCue.editDistance("TEXAS", "TEXAS") == 0)
        #expect(PlateCue.editDistance("TEKAS", "TEXAS") == 1)
        #expect(PlateCue.editDistance("", "OHIO") == 4)
        #expect(PlateCue.editDistance("OHIO", "") == 4)
    }
}
