import Foundation
import SeerStore
import SeerVerify
import Testing

enum Data1 {
    static let serum = "09506000134352"
    static let pads = "09506000134376"
    static let acme = try! SigningKey.ed25519(kid: "acme-2025", seed: Array(repeating: 1, count: 32))
    static let acmeOld = try! SigningKey.ed25519(kid: "acme-2019", seed: Array(repeating: 2, count: 32))
    static let globex = try! SigningKey.ed25519(kid: "globex-1", seed: Array(repeating: 4, count: 32))

    static let gb = Country(rawValue: "GB")!
    static let registry = RegistryFile(
        brands: [
            Brand(id: "acme", name: "Acme", keys: [acme.publicKey(), acmeOld.publicKey(status: .revoked)]),
            Brand(id: "globex", name: "Globex", keys: [globex.publicKey()]),
        ],
        products: [
            Product(gtin: serum, name: "Radiance Serum", brand: "acme", category: "cosmetics", markets: ["DE", "FR"]),
            Product(gtin: pads, name: "Brake Pads", brand: "globex", category: "autoparts"),
        ],
        serials: (1...20).map { SerialRecord(gtin: serum, serial: "S\($0)") } + [
            SerialRecord(gtin: serum, serial: "R1", status: .recalled), SerialRecord(gtin: serum, serial: "D1", status: .decommissioned),
            SerialRecord(gtin: pads, serial: "P1"),
        ],
        users: [
            PlateOwner(id: "r-ab12", name: "Ann Example", email: "ann@example.com", plate: "AB12 CDE", country: gb),
            PlateOwner(id: "r-b0b1", name: "Bob Example", email: "bob@example.com", plate: "B0B 123", country: gb),
            PlateOwner(id: "r-8081", name: "Cy Example", email: "cy@example.com", plate: "808 123", country: gb),
        ],
        chargers: ChargerStatus.allCases.enumerated().map {
            Charger(id: String(100_001 + $0.offset), serial: "CP-\($0.offset)", location: "Bay \($0.offset)", status: $0.element)
        })

    static func json(_ file: RegistryFile) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(file)
    }

    static func link(_ gtin: String, _ serial: String, _ key: SigningKey? = acme) throws -> String {
        try CodeIssuer.digitalLink(CodeIssuer.Fields(gtin: gtin, serial: serial), key: key)
    }
}

@Suite struct StoreTests {
    func imported(_ kind: StoreKind) throws -> TemporaryStore {
        let temporary = try TemporaryStore(kind)
        _ = try temporary.store.importRegistry([("registry.json", try Data1.json(Data1.registry))])
        return temporary
    }

    @Test func opensOneWALFileWithNamedMigrations() throws {
        let temporary = try TemporaryStore(.sqlite)
        #expect(FileManager.default.fileExists(atPath: temporary.sqlite.path))
        #expect(try temporary.sqlite.journalMode() == "wal")
        #expect(try temporary.sqlite.appliedMigrations() == ["v1-registry", "v2-history", "v3-inbox", "v4-statistics", "v5-reports", "v6-batches", "v7-apikeys", "v8-search-groups", "v9-partial-indexes"])
        // Reopening migrates nothing again.
        let again = try SQLiteStore(path: temporary.sqlite.path)
        #expect(try again.appliedMigrations().count == 9)
    }

    @Test func defaultPathFollowsXDG() {
        #expect(defaultStorePath(environment: ["XDG_DATA_HOME": "/x", "HOME": "/h"]) == "/x/seer/seer.sqlite")
        #expect(defaultStorePath(environment: ["HOME": "/h"]) == "/h/.local/share/seer/seer.sqlite")
    }

    @Test(arguments: StoreKind.testable) func importCountsEveryKind(_ kind: StoreKind) throws {
        let temporary = try TemporaryStore(kind)
        let summary = try temporary.store.importRegistry([("registry.json", try Data1.json(Data1.registry))])
        #expect(summary == ImportSummary(files: 1, brands: 2, keys: 3, products: 2, serials: 23, users: 3, chargers: 9))
        // Importing again updates in place.
        _ = try temporary.store.importRegistry([("registry.json", try Data1.json(Data1.registry))])
        #expect(try temporary.store.charger(id: "100001")?.status == .available)
    }

    @Test(arguments: StoreKind.testable, [
        (#"{"products":[{"gtin":"09506000134353","name":"x","brand":"acme","category":"c","markets":[]}]}"#, "products[0]", "gtin"),
        (#"{"products":[{"gtin":"09506000134352","name":"x","brand":"nobody","category":"c","markets":[]}]}"#, "products[0]", "brand"),
        (#"{"products":[{"gtin":"09506000134352","brand":"acme","category":"c","markets":[]}]}"#, "products[0]", "name"),
        (#"{"products":[{"gtin":"09506000134352","name":"x","brand":"acme","category":"c","markets":["Germany"]}]}"#, "products[0]", "markets[0]"),
        (#"{"serials":[{"gtin":"09506000134352","serial":"S1","status":"lost"}]}"#, "serials[0]", "status"),
        (#"{"serials":[{"gtin":"09506000134383","serial":"S1","status":"active"}]}"#, "serials[0]", "gtin"),
        (#"{"brands":[{"id":"x","name":"X","keys":[{"kid":"k","algorithm":"EdDSA","publicKey":"AAAA","status":"active"}]}]}"#, "brands[0]", "keys[0].publicKey"),
        (#"{"brands":[{"id":"x","name":"X","keys":[{"kid":"k","algorithm":"RS256","publicKey":"AAAA","status":"active"}]}]}"#, "brands[0]", "keys[0].algorithm"),
        (#"{"users":[{"id":"r","name":"N","email":"nope","plate":"AB1","region":"GB"}]}"#, "users[0]", "email"),
        (#"{"chargers":[{"id":"12345","serial":"s","location":"l","status":"Available"}]}"#, "chargers[0]", "id"),
        (#"{"chargers":[{"id":"123456","serial":"s","location":"l","status":"Broken"}]}"#, "chargers[0]", "status"),
    ])
    func importErrorsNameFileRecordAndField(_ kind: StoreKind, _ bad: (json: String, record: String, field: String)) throws {
        let (json, record, field) = bad
        let temporary = try imported(kind)
        #expect {
            _ = try temporary.store.importRegistry([("good.json", try Data1.json(RegistryFile(chargers: [
                Charger(id: "999999", serial: "new", location: "new", status: .available),
            ]))), ("bad.json", Data(json.utf8))])
        } throws: { error in
            guard let error = error as? ImportError else { return false }
            return error.file == "bad.json" && error.record == record && error.field == field
        }
        // All or nothing: the good file's charger was not imported either.
        #expect(try temporary.store.charger(id: "999999") == nil)
    }

    @Test(arguments: StoreKind.testable) func brokenJSONNamesTheFile(_ kind: StoreKind) throws {
        let temporary = try TemporaryStore(kind)
        do {
            _ = try temporary.store.importRegistry([("broken.json", Data("{\"products\": [".utf8))])
            Issue.record("accepted broken JSON")
        } catch let error as ImportError {
            #expect(error.file == "broken.json")
            #expect(error.description.contains("nothing was imported"))
        }
    }

    @Test(arguments: StoreKind.testable) func verifiesEveryVerdictAgainstTheDatabase(_ kind: StoreKind) throws {
        let temporary = try imported(kind)
        let inputs = [
            try Data1.link(Data1.serum, "S1"), try Data1.link(Data1.serum, "S2", Data1.acmeOld), try Data1.link(Data1.serum, "R1"),
            "https://example.com/", try Data1.link(Data1.serum, "D1"), try Data1.link(Data1.serum, "S3", Data1.globex),
        ].map { ScanInput(payload: $0) }
        let results = try temporary.store.verify(inputs, context: ScanContext(time: 1_800_000_000), mode: .single, verifier: Verifier(), save: true)
        #expect(results.map(\.verdict) == [.authentic, .counterfeit, .suspicious, .unknown, .counterfeit, .counterfeit])
        #expect(results.map { $0.reasons.first } == [.validSignature, .revokedKey, .recalled, .notAProductCode, .decommissioned, .wrongBrandKey])
        let page = try temporary.store.history(HistoryQuery(limit: 100))
        #expect(page.scans.count == 6)
        let first = try #require(page.scans.last)
        #expect(first.productName == "Radiance Serum" && first.category == "cosmetics" && first.verdict == .authentic && first.serial == "S1")
    }

    @Test(arguments: StoreKind.testable) func batchFlagsDuplicatesAndHistoryFeedsCloneSignals(_ kind: StoreKind) throws {
        let temporary = try imported(kind)
        let payload = try Data1.link(Data1.serum, "S5")
        let inputs = [payload, try Data1.link(Data1.serum, "S6"), payload].map { ScanInput(payload: $0, sourceFile: nil) }
        let results = try temporary.store.verify(inputs, context: ScanContext(time: 1_800_000_000, device: "d"), mode: .batch, verifier: Verifier(), save: true)
        #expect(results.map(\.verdict) == [.authentic, .authentic, .suspicious])
        #expect(results[2].reasons.first == .duplicateInBatch)
        let scans = try temporary.store.history(HistoryQuery()).scans
        #expect(scans.count == 3 && Set(scans.compactMap(\.batchID)).count == 1)

        // Same photo twice in single mode: duplicateInPhoto.
        let photo = try temporary.store.verify(
            [ScanInput(payload: payload, sourceFile: "a.jpg"), ScanInput(payload: payload, sourceFile: "a.jpg")],
            context: ScanContext(time: 1_800_000_100), mode: .single, verifier: Verifier(), save: false)
        #expect(photo[1].reasons.contains(.duplicateInPhoto))

        // Stored scans count towards the thresholds.
        var configuration = VerifyConfiguration()
        configuration.maxScans = 2
        let clone = try temporary.store.verify(
            [ScanInput(payload: payload)], context: ScanContext(time: 1_800_000_200), mode: .single, verifier: Verifier(configuration: configuration), save: false)
        #expect(clone[0].verdict == .suspicious && clone[0].reasons.contains(.tooManyScans))
        // Impossible travel against a stored location.
        _ = try temporary.store.verify(
            [ScanInput(payload: try Data1.link(Data1.serum, "S7"))], context: ScanContext(time: 1_800_000_000, latitude: 52.52, longitude: 13.405),
            mode: .single, verifier: Verifier(), save: true)
        let travel = try temporary.store.verify(
            [ScanInput(payload: try Data1.link(Data1.serum, "S7"))], context: ScanContext(time: 1_800_000_600, latitude: 40.4168, longitude: -3.7038),
            mode: .single, verifier: Verifier(), save: false)
        #expect(travel[0].reasons.contains(.impossibleTravel))
    }

    func seededHistory(_ kind: StoreKind) throws -> (TemporaryStore, Double) {
        let temporary = try imported(kind)
        let now = 1_800_000_000.0
        // Ages: 1 hour, 3 days, 20 days, 90 days; each an authentic serum, a counterfeit serum and an authentic pad.
        for (index, age) in ([3600, 3 * 86_400, 20 * 86_400, 90 * 86_400] as [Double]).enumerated() {
            let context = ScanContext(time: now - age, device: "device-\(index)")
            _ = try temporary.store.verify(
                [
                    ScanInput(payload: try Data1.link(Data1.serum, "S\(10 + index)"), sourceFile: "shelf-\(index).jpg", symbology: "qrcode"),
                    ScanInput(payload: try Data1.link(Data1.serum, "S\(10 + index)", Data1.acmeOld)),
                    ScanInput(payload: try Data1.link(Data1.pads, "P1", Data1.globex)),
                ], context: context, mode: .batch, verifier: Verifier(), save: true)
        }
        return (temporary, now)
    }

    @Test(arguments: StoreKind.testable) func historyFilters(_ kind: StoreKind) throws {
        let (temporary, now) = try seededHistory(kind)
        let store = temporary.store
        func count(_ query: HistoryQuery) throws -> Int { try store.history(query).scans.count }
        #expect(try count(HistoryQuery(limit: 100, now: now)) == 12)
        #expect(try count(HistoryQuery(result: .success, limit: 100, now: now)) == 8)
        #expect(try count(HistoryQuery(result: .failed, limit: 100, now: now)) == 4)
        #expect(try count(HistoryQuery(category: "autoparts", limit: 100, now: now)) == 4)
        #expect(try count(HistoryQuery(result: .failed, category: "cosmetics", limit: 100, now: now)) == 4)
        #expect(try count(HistoryQuery(period: .day, limit: 100, now: now)) == 3)
        #expect(try count(HistoryQuery(period: .week, limit: 100, now: now)) == 6)
        #expect(try count(HistoryQuery(period: .month, limit: 100, now: now)) == 9)
        #expect(try count(HistoryQuery(period: .all, limit: 100, now: now)) == 12)
        // One device's scans only (a device key's history and totals), with any other filter or a search.
        var own = HistoryQuery(limit: 100, now: now)
        own.device = "device-1"
        #expect(try store.history(own).scans.map(\.device) == Array(repeating: "device-1", count: 3))
        #expect(try store.statistics(own).total == 3)
        own.category = "autoparts"
        #expect(try count(own) == 1)
        own.category = nil
        own.search = "serum"
        #expect(try count(own) == 2)
        own.device = "device-9"
        #expect(try count(own) == 0)
        #expect(try store.statistics(own).total == 0)
        // The default period comes from settings.
        try store.setSetting("history.period", "week")
        #expect(try count(HistoryQuery(limit: 100, now: now)) == 6)
        #expect(try count(HistoryQuery(period: .all, limit: 100, now: now)) == 12)
    }

    @Test(arguments: StoreKind.testable) func paginationNewestFirst(_ kind: StoreKind) throws {
        let (temporary, now) = try seededHistory(kind)
        var seen: [Int64] = []
        var offset = 0
        while true {
            let page = try temporary.store.history(HistoryQuery(limit: 5, offset: offset, now: now))
            seen += page.scans.compactMap(\.id)
            guard page.hasMore, let next = page.nextOffset else { break }
            offset = next
        }
        #expect(seen.count == 12 && seen == seen.sorted(by: >))
    }

    @Test(arguments: StoreKind.testable) func fullTextSearchWithPrefixesOverEveryField(_ kind: StoreKind) throws {
        let (temporary, now) = try seededHistory(kind)
        let store = temporary.store
        func search(_ text: String) throws -> [ScanRecord] { try store.history(HistoryQuery(search: text, limit: 100, now: now)).scans }
        #expect(try search("radia").count == 8, "product name prefix")
        #expect(try search("Brake pad").count == 4, "two prefixes, both required")
        #expect(try search("revokedK").count == 4, "reason")
        #expect(try search("counterf").count == 4, "verdict")
        #expect(try search("device-2").count == 3, "device")
        #expect(try search("shelf").count == 4, "source file")
        #expect(try search("autopar").count == 4, "category")
        #expect(try search("S12").count == 2, "serial")
        #expect(try search("elementStr").isEmpty)
        #expect(try search("digitalLink").count == 12, "format")
        #expect(try search("zzz").isEmpty)
        #expect(try store.history(HistoryQuery(result: .failed, search: "radiance", limit: 100, now: now)).scans.count == 4)
        #expect(try store.suggestions(prefix: "rad", limit: 5) == ["radiance"])
        #expect(try store.suggestions(prefix: "s1", limit: 10).contains("s12"))
    }

    @Test(arguments: StoreKind.testable) func recentSearchesAreDeduplicatedMostRecentFirst(_ kind: StoreKind) throws {
        let temporary = try TemporaryStore(kind)
        for text in ["serum", "brake", "serum", " pads ", "brake"] { try temporary.store.rememberSearch(text) }
        #expect(try temporary.store.recentSearches(limit: 10) == ["brake", "pads", "serum"])
        #expect(try temporary.store.recentSearches(limit: 2) == ["brake", "pads"])
    }

    @Test(arguments: StoreKind.testable) func statisticsByVerdictCategoryAndDay(_ kind: StoreKind) throws {
        let (temporary, now) = try seededHistory(kind)
        let stats = try temporary.store.statistics(HistoryQuery(now: now))
        #expect(stats.total == 12)
        #expect(stats.byVerdict == [.init(key: "authentic", count: 8), .init(key: "counterfeit", count: 4)])
        #expect(stats.byCategory == [.init(key: "cosmetics", count: 8), .init(key: "autoparts", count: 4)])
        #expect(stats.perDay.count == 4 && stats.perDay.allSatisfy { $0.count == 3 })
        #expect(stats.perDay.map(\.key) == stats.perDay.map(\.key).sorted())
        let week = try temporary.store.statistics(HistoryQuery(period: .week, now: now))
        #expect(week.total == 6)
        let searched = try temporary.store.statistics(HistoryQuery(search: "brake", now: now))
        #expect(searched.total == 4 && searched.byCategory == [.init(key: "autoparts", count: 4)])
    }

    @Test(arguments: StoreKind.testable) func platesResolveThroughTheDatabase(_ kind: StoreKind) throws {
        let temporary = try imported(kind)
        let resolver = PlateResolver()
        let exact = try temporary.store.resolvePlate("ab12cde", country: nil, region: nil, candidates: [], resolver: resolver)
        #expect(exact == PlateResolution(status: .resolved, recipient: "r-ab12", plate: "AB12CDE"))
        let variant = try temporary.store.resolvePlate("A812 CDE", country: try Country.parse("gb"), region: nil, candidates: [], resolver: resolver)
        #expect(variant.status == .resolved && variant.recipient == "r-ab12" && variant.viaVariant)
        let ambiguous = try temporary.store.resolvePlate("8OB123", country: nil, region: nil, candidates: [], resolver: resolver)
        #expect(ambiguous.status == .ambiguous && Set(ambiguous.candidates) == ["B0B123", "808123"] && ambiguous.recipient == nil)
        let unknown = try temporary.store.resolvePlate("QQ99QQQ", country: nil, region: nil, candidates: [], resolver: resolver)
        #expect(unknown.status == .notRegistered)
        // The JSON a sender sees never holds a name or an email.
        let json = String(decoding: try JSONEncoder().encode(exact), as: UTF8.self)
        #expect(!json.contains("Ann") && !json.contains("@"))
    }

    @Test(arguments: StoreKind.testable) func messagesLandInTheRecipientsInbox(_ kind: StoreKind) throws {
        let temporary = try imported(kind)
        let receipt = try temporary.store.deliver(text: "Your lights are on.", preset: "lights", to: "r-ab12", at: 1_800_000_000)
        #expect(receipt == DeliveryReceipt())
        _ = try temporary.store.deliver(text: "Thanks", preset: nil, to: "r-ab12", at: 1_800_000_100)
        let inbox = try temporary.store.inbox(recipient: "r-ab12")
        #expect(inbox.map(\.text) == ["Thanks", "Your lights are on."])
        #expect(try temporary.store.inbox(recipient: "r-b0b1").isEmpty)
        #expect(throws: StoreError.self) { try temporary.store.deliver(text: "x", preset: nil, to: "r-nobody", at: 0) }
    }

    @Test(arguments: StoreKind.testable) func chargersGiveTheirAction(_ kind: StoreKind) throws {
        let temporary = try imported(kind)
        for (offset, status) in ChargerStatus.allCases.enumerated() {
            let id = String(100_001 + offset)
            let resolution = ChargerResolution(chargerID: id, charger: try temporary.store.charger(id: id))
            #expect(resolution.status == status && resolution.action == ChargerAction(status: status))
        }
        #expect(ChargerResolution(chargerID: "555555", charger: try temporary.store.charger(id: "555555")).action == .noChargerFound)
    }
}
