import Foundation
import Seer
import Testing

/// The demo registry and codes give the answers `codes.json` promises, through the engine and a real database.
@Suite struct DemoTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func demoCodesGetTheirExpectedAnswers() throws {
        let temporary = try TemporaryStore()
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

    @Test func plateMessagesThroughTheEngine() throws {
        let temporary = try TemporaryStore()
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
