import Foundation
import Seer
import SeerCodegen
import Testing

/// The demo registry and codes give the answers `codes.json` promises, through the engine and a real database.
@Suite struct DemoTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test(arguments: StoreKind.testable) func demoCodesGetTheirExpectedAnswers(_ kind: StoreKind) throws {
        let temporary = try TemporaryStore(kind)
        let files = try VerifyDemo.registryFiles()
        let encoder = JSONEncoder()
        _ = try temporary.store.importRegistry(try files.map { ($0.name, try encoder.encode($0.file)) })
        let engine = Engine()
        let codes = try VerifyDemo.codes()
        let products = codes.filter { $0.kind == "product" }
        let results = try engine.verify(
            products.map { ScanInput(payload: $0.payload, sourceFile: $0.file) }, context: ScanContext(device: "test", country: "DE"),
            mode: .batch, store: temporary.store)
        for (code, result) in zip(products, results) {
            #expect(result.verdict.rawValue == code.expected, "\(code.file): \(result.reasons)")
        }
        #expect(Set(results.map(\.verdict)) == Set(Verdict.allCases))
        for code in codes where code.kind == "charger" {
            #expect(try engine.resolveCharger(payload: code.payload, store: temporary.store).message == code.expected, "\(code.file)")
        }
    }

    @Test func committedExamplesMatchTheDemo() throws {
        let decoder = JSONDecoder()
        for (name, file) in try VerifyDemo.registryFiles() {
            let url = Self.repository.appendingPathComponent("Examples/registry/" + name)
            #expect(try decoder.decode(RegistryFile.self, from: Data(contentsOf: url)) == file, "\(name)")
        }
        let listed = try decoder.decode(
            [VerifyDemo.Code].self, from: Data(contentsOf: Self.repository.appendingPathComponent("TestImages/products/codes.json")))
        #expect(listed.map(\.file) == (try VerifyDemo.codes()).map(\.file))
        for code in listed {
            let image = try ImageDecoder.decode(contentsOf: Self.repository.appendingPathComponent("TestImages/products/" + code.file).path)
            #expect(image.gray.width > 100)
        }
    }

    @Test(arguments: StoreKind.testable) func plateMessagesThroughTheEngine(_ kind: StoreKind) throws {
        let temporary = try TemporaryStore(kind)
        _ = try temporary.store.importRegistry(try VerifyDemo.registryFiles().map { ($0.name, try JSONEncoder().encode($0.file)) })
        let engine = Engine()
        #expect(try engine.sendPlateMessage(to: "ab12 cde", preset: "blocking", at: 1, store: temporary.store) == DeliveryReceipt())
        #expect(throws: PayloadIssue.self) { try engine.sendPlateMessage(to: "8OB123", text: "hello", at: 2, store: temporary.store) }
        #expect(throws: PayloadIssue.self) { try engine.sendPlateMessage(to: "ZZ99ZZZ", text: "hello", at: 3, store: temporary.store) }
        #expect(throws: PayloadIssue.self) {
            try engine.sendPlateMessage(to: "AB12CDE", text: String(repeating: "y", count: 141), at: 4, store: temporary.store)
        }
        #expect(try temporary.store.inbox(recipient: "rcp-7f3a9c").map(\.text) == ["Your car is blocking mine."])
    }
}

/// Every reason and every verdict comes out of verification against a real database file.
@Suite struct EveryReasonTests {
    @Test(arguments: StoreKind.testable) func everyReasonAndVerdictInTheStore(_ kind: StoreKind) throws {
        let temporary = try TemporaryStore(kind)
        _ = try temporary.store.importRegistry(try VerifyDemo.registryFiles().map { ($0.name, try JSONEncoder().encode($0.file)) })
        let engine = Engine()
        var results: [Verification] = []
        let codes = try VerifyDemo.codes().filter { $0.kind == "product" }
        let now = 1_800_000_000.0
        results += try engine.verify(
            codes.map { ScanInput(payload: $0.payload) }, context: ScanContext(time: now, device: "a", country: "DE"), mode: .batch,
            store: temporary.store)
        let keys = try VerifyDemo.keys()
        let fields = CodeIssuer.Fields(gtin: "09506000134352", serial: "S1011")
        let serum = try CodeIssuer.digitalLink(fields, key: keys["acme-2025"]!)
        // Another brand's key; outside the markets; the same code twice in one photo.
        results += try engine.verify(
            [ScanInput(payload: try CodeIssuer.digitalLink(fields, key: keys["globex-2025"]!))], context: ScanContext(time: now),
            store: temporary.store)
        results += try engine.verify(
            [ScanInput(payload: serum, sourceFile: "p.jpg"), ScanInput(payload: serum, sourceFile: "p.jpg")],
            context: ScanContext(time: now + 10, device: "b", latitude: 52.52, longitude: 13.405, country: "US"), store: temporary.store)
        // Saved history now drives the clone signals: more devices, countries and scans than allowed,
        // and Berlin to Lisbon in ten minutes.
        var configuration = Engine.Configuration()
        configuration.verify.maxScans = 2
        configuration.verify.maxDevices = 1
        configuration.verify.maxCountries = 1
        results += try Engine(configuration: configuration).verify(
            [ScanInput(payload: serum)], context: ScanContext(time: now + 600, device: "c", latitude: 38.72, longitude: -9.14, country: "DE"),
            store: temporary.store)
        let reasons = Set(results.flatMap(\.reasons))
        #expect(reasons == Set(Reason.allCases), "missing \(Set(Reason.allCases).subtracting(reasons))")
        #expect(Set(results.map(\.verdict)) == Set(Verdict.allCases))
        #expect(try temporary.store.history(HistoryQuery(limit: 100)).scans.count == results.count)
    }
}
