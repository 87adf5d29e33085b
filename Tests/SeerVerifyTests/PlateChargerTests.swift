import SeerVerify
import Testing

/// Registered plates in memory (the SQLite directory is tested in SeerStoreTests).
struct PlateList: PlateDirectory {
    var owners: [(plate: String, region: String, id: String)]

    func recipients(forPlates plates: [String], country: Country?) -> [String: [String]] {
        var found: [String: [String]] = [:]
        for owner in owners where plates.contains(owner.plate) && (country == nil || country?.rawValue == owner.region) {
            found[owner.plate, default: []].append(owner.id)
        }
        return found
    }
}

@Suite struct PlateTests {
    let directory = PlateList(owners: [
        ("AB12CDE", "GB", "r-1"), ("XY51ABC", "GB", "r-2"), ("B0B123", "GB", "r-3"), ("808123", "GB", "r-4"),
    ])

    @Test func canonicalForm() {
        #expect(canonicalPlate(" ab-12 cde ") == "AB12CDE")
        // Latin letters with accents are their base letter; other characters are dropped.
        #expect(canonicalPlate("ÄB·12") == "AB12")
        #expect(canonicalPlate("ÄÖ-ÜÉ 12") == "AOUE12")
    }

    @Test func exactMatchResolvesToAnOpaqueID() throws {
        let result = try PlateResolver().resolve("ab12 cde", in: directory)
        #expect(result == PlateResolution(status: .resolved, recipient: "r-1", plate: "AB12CDE"))
    }

    @Test func confusionVariantResolves() throws {
        let result = try PlateResolver().resolve("AB12C0E", in: directory)
        #expect(result.status == .resolved && result.recipient == "r-1" && result.viaVariant)
    }

    @Test func readerCandidatesAreTried() throws {
        let result = try PlateResolver(variants: ConfusionVariants(maxSubstitutions: 0)).resolve(
            "XY5IABC", candidates: ["XY51ABC"], in: directory)
        #expect(result.status == .resolved && result.recipient == "r-2")
    }

    @Test func severalOwnersAreAmbiguousAndNameOnlyPlates() throws {
        // B0B123 and 808123 are both one or two confusions from 8OB123.
        let result = try PlateResolver().resolve("8OB123", in: directory)
        #expect(result.status == .ambiguous)
        #expect(Set(result.candidates) == ["B0B123", "808123"])
        #expect(result.recipient == nil)
    }

    @Test func unknownPlateIsNotRegistered() throws {
        #expect(try PlateResolver().resolve("ZZ99ZZZ", in: directory).status == .notRegistered)
        #expect(try PlateResolver().resolve("AB12CDE", country: try Country.parse("DE"), in: directory).status == .notRegistered)
    }

    @Test func variantsStayInTheAlphabetAndComeClosestFirst() {
        let variants = ConfusionVariants().variants(of: "A0", region: nil)
        #expect(variants.allSatisfy { canonicalPlate($0) == $0 })
        #expect(variants.prefix(4).allSatisfy { zip($0, "A0").filter { $0 != $1 }.count == 1 })
        #expect(!variants.contains("A0"))
    }

    @Test func messages() throws {
        let policy = MessagePolicy()
        #expect(try policy.text(preset: "lights", custom: nil).get() == "Your lights are on.")
        #expect(try policy.text(preset: nil, custom: "  Nice car  ").get() == "Nice car")
        #expect(throws: PayloadIssue.self) { try policy.text(preset: nil, custom: String(repeating: "x", count: 141)).get() }
        #expect((try? policy.text(preset: nil, custom: String(repeating: "x", count: 140)).get()) != nil)
        #expect(throws: PayloadIssue.self) { try policy.text(preset: "nope", custom: nil).get() }
        #expect(throws: PayloadIssue.self) { try policy.text(preset: nil, custom: "   ").get() }
    }
}

@Suite struct ChargerTests {
    @Test(arguments: [
        ("123456", "123456"), (" 999999 ", "999999"), ("https://charge.example.com/cp/654321", "654321"),
        ("https://charge.example.com/start?id=100000&lang=en", "100000"), ("https://x.example/app?evse=200001", "200001"),
        ("HTTPS://EXAMPLE.COM/A/300000/B", "300000"),
    ])
    func readsIDs(_ payload: String, _ id: String) throws {
        #expect(try ChargerID.parsePayload(payload).get() == id)
    }

    @Test(arguments: [
        ("12345", "wrongLength"), ("1234567", "wrongLength"), ("12a456", "notDigits"), ("012345", "outOfRange"),
        ("", "emptyChargerID"),
    ])
    func typedIDsAreCheckedWithClearMessages(_ text: String, _ code: String) {
        guard case .failure(let issue) = ChargerID.parseTyped(text) else { Issue.record("accepted \(text)"); return }
        #expect(issue.code == code)
        #expect(!issue.message.isEmpty)
    }

    @Test func payloadsWithoutAnIDAreRefused() {
        for payload in ["hello", "https://example.com/about", "https://example.com/12345", "https://example.com/?id=012345"] {
            guard case .failure(let issue) = ChargerID.parsePayload(payload) else { Issue.record("accepted \(payload)"); return }
            #expect(issue.code == "notAChargerCode")
        }
    }

    @Test func statusesMapToActions() {
        let expected: [ChargerStatus: ChargerAction] = [
            .available: .beginCharging, .preparing: .chargerOccupied, .charging: .chargerOccupied,
            .suspendedEVSE: .chargerOccupied, .suspendedEV: .chargerOccupied, .finishing: .chargerOccupied,
            .reserved: .chargerOccupied, .faulted: .chargerOutOfOrder, .unavailable: .chargerNotAvailable,
        ]
        for status in ChargerStatus.allCases {
            #expect(ChargerAction(status: status) == expected[status])
        }
        #expect(ChargerResolution(chargerID: "123456", charger: nil).message == "No charger found")
        let busy = ChargerResolution(chargerID: "123456", charger: Charger(id: "123456", serial: "S", location: "L", status: .reserved))
        #expect(busy.message == "Charger occupied")
        #expect(ChargerAction.beginCharging.message == "Begin charging")
        #expect(ChargerAction.chargerOutOfOrder.message == "Charger out of order")
        #expect(ChargerAction.chargerNotAvailable.message == "Charger not available")
    }
}
