import Foundation
import SeerTestSupport
import Seer
import SeerCodegen
import Testing

/// Codes and plates read from photos, answered through the engine and a real SQLite file.
@Suite struct PhotoVerifyTests {
    static let products = DemoTests.repository.appendingPathComponent("TestImages/products")
    static let plates = DemoTests.repository.appendingPathComponent("TestImages/plates")

    static func demoStore(_ kind: StoreKind = .sqlite) throws -> TemporaryStore {
        let temporary = try TemporaryStore(kind)
        _ = try temporary.store.importRegistry(try VerifyDemo.registryFiles().map { ($0.name, try JSONEncoder().encode($0.file)) })
        return temporary
    }

    static func listedCodes() throws -> [VerifyDemo.Code] {
        try JSONDecoder().decode([VerifyDemo.Code].self, from: Data(contentsOf: products.appendingPathComponent("codes.json")))
    }

    @Test(arguments: StoreKind.testable) func everyDemoPhotoReadsToItsPayloadAndGetsItsVerdict(_ kind: StoreKind) throws {
        let temporary = try Self.demoStore(kind)
        let engine = Engine()
        let codes = try Self.listedCodes().filter { $0.kind == "product" }
        try #require(codes.count == 17)
        var readings: [(file: String, codes: [CodeReading])] = []
        for code in codes {
            let read = try engine.readCodesForVerification(contentsOf: Self.products.appendingPathComponent(code.file).path)
            #expect(read == [CodeReading(payload: code.payload, symbology: code.symbology)], "\(code.file)")
            readings.append((code.file, read))
        }
        // Batch mode in the order codes.json lists them, as its expected answers assume.
        let results = try engine.verify(readings: readings, context: ScanContext(device: "test"), mode: .batch, store: temporary.store)
        try #require(results.count == codes.count)
        for (code, result) in zip(codes, results) {
            #expect(result.verdict.rawValue == code.expected, "\(code.file): \(result.reasons)")
            #expect(result.source == code.file)
            #expect(result.symbology == code.symbology)
        }
        #expect(try temporary.store.history(HistoryQuery(limit: 100)).scans.count == codes.count)
    }

    @Test func verifyPhotosReadsEachPhotoOnce() throws {
        let temporary = try Self.demoStore()
        let paths = ["cloned-1.png", "cloned-2.png", "recalled.png"].map { Self.products.appendingPathComponent($0).path }
        let results = try Engine().verify(photos: paths, mode: .batch, store: temporary.store, save: false)
        #expect(results.map(\.verdict) == [.authentic, .suspicious, .suspicious])
        #expect(results[1].reasons.contains(.duplicateInBatch))
        #expect(results.map(\.source) == paths)
        #expect(try temporary.store.history(HistoryQuery(limit: 10)).scans.isEmpty)
        #expect(throws: ImageError.self) { try Engine().verify(photos: ["/nonexistent/photo.png"], store: temporary.store) }
    }

    @Test func chargerPhotosGetTheirActions() throws {
        let temporary = try Self.demoStore()
        let engine = Engine()
        for code in try Self.listedCodes() where code.kind == "charger" {
            let resolution = try engine.resolveCharger(photo: Self.products.appendingPathComponent(code.file).path, store: temporary.store)
            #expect(resolution.message == code.expected, "\(code.file)")
        }
        // A product code holds six digits (its expiry) but is no charger code.
        #expect(throws: PayloadIssue.self) {
            try engine.resolveCharger(photo: Self.products.appendingPathComponent("authentic-link.png").path, store: temporary.store)
        }
    }

    @Test func generatedChargerCodeThroughTheEngineAndTheCommand() throws {
        let temporary = try Self.demoStore()
        let symbol = try QREncoder.encode("https://charge.example.com/start?chargePointId=100002", errorCorrection: .quartile)
        let png = temporary.directory + "/charger-preparing.png"
        try PNGWriter.write(symbol.image(moduleSize: 5), to: png)
        let resolution = try Engine().resolveCharger(photo: png, store: temporary.store)
        #expect(resolution.chargerID == "100002")
        #expect(resolution.status == .preparing)
        #expect(resolution.action == .chargerOccupied)

        let db = temporary.directory + "/nested/seer.sqlite"
        let text = try SeerBinary.run(["charger", "--db", db, png])
        #expect(text.status == 0)
        #expect(text.out == "100002: Charger occupied (Preparing) — Demo Street 2, bay 2\n")
        let json = try SeerBinary.run(["charger", "--db", db, "--format", "json", png])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        #expect(object["action"] as? String == "chargerOccupied")
        #expect(object["chargerID"] as? String == "100002")
        let notCharger = try SeerBinary.run(["charger", "--db", db, Self.products.appendingPathComponent("recalled.png").path])
        #expect(notCharger.status == 1)
        #expect(notCharger.err.contains("No charger code found"))
    }

    @Test func twoCopiesInOnePhotoAreDuplicateInPhoto() throws {
        let temporary = try Self.demoStore()
        let code = try #require(try Self.listedCodes().first { $0.file == "authentic-link.png" })
        let qr = try QREncoder.encode(code.payload, errorCorrection: .medium).image(moduleSize: 4)
        let gap = 40
        let canvas = GrayImage(width: qr.width * 2 + gap, height: qr.height) { x, y in
            let cx = x < qr.width ? x : x - qr.width - gap
            return cx >= 0 && cx < qr.width ? qr[cx, y] : 255
        }
        let png = temporary.directory + "/two-copies.png"
        try PNGWriter.write(canvas, to: png)
        let engine = Engine()
        let read = try engine.readCodesForVerification(contentsOf: png)
        #expect(read.count == 2)
        let results = try engine.verify(readings: [(png, read)], store: temporary.store)
        #expect(results.map(\.verdict) == [.authentic, .suspicious])
        #expect(results[1].reasons.first == .duplicateInPhoto)
    }

    @Test(arguments: StoreKind.testable) func scanAnswersCodesAndRecordsThem(_ kind: StoreKind) throws {
        let temporary = try Self.demoStore(kind)
        let engine = Engine()
        let context = ScanContext(device: "phone-1", country: "DE")
        let product = try engine.scan(
            contentsOf: Self.products.appendingPathComponent("authentic-link.png").path, ScanRequest(context: context),
            store: temporary.store)
        let symbol = try #require(product.symbols.first)
        #expect(product.symbols.count == 1)
        #expect(symbol.verification?.verdict == .authentic)
        #expect(symbol.verification?.source == product.file)
        #expect(symbol.charger == nil)
        #expect(product.plates == nil)
        let saved = try temporary.store.history(HistoryQuery(limit: 10)).scans
        #expect(saved.count == 1)
        #expect(saved.first?.device == "phone-1")

        let charger = try engine.scan(
            contentsOf: Self.products.appendingPathComponent("charger-charging.png").path, ScanRequest(context: context),
            store: temporary.store)
        #expect(charger.symbols.first?.charger?.action == .chargerOccupied)
        #expect(charger.symbols.first?.verification == nil)
        // Charger look-ups are not product scans: nothing more in the history.
        #expect(try temporary.store.history(HistoryQuery(limit: 10)).scans.count == 1)

        // Same photo bytes, not saved.
        let bytes = try [UInt8](Data(contentsOf: Self.products.appendingPathComponent("recalled.png")))
        let recalled = try engine.scan(bytes, file: "upload.png", ScanRequest(save: false), store: temporary.store)
        #expect(recalled.file == "upload.png")
        #expect(recalled.symbols.first?.verification?.verdict == .suspicious)
        #expect(try temporary.store.history(HistoryQuery(limit: 10)).scans.count == 1)

        // The JSON is the scan model with the answers added to each symbol.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = try #require(try JSONSerialization.jsonObject(with: encoder.encode(product)) as? [String: Any])
        let first = try #require((json["symbols"] as? [[String: Any]])?.first)
        #expect((first["verification"] as? [String: Any])?["verdict"] as? String == "authentic")
        #expect(first["charger"] == nil)
        #expect(json["plates"] == nil && json["resolvedOwner"] == nil)
        #expect(try JSONDecoder().decode(ScanReport.self, from: encoder.encode(product)) == product)
    }

    @Test func scanReadsThePlateAndResolvesItsOwnerWithoutTheirContact() throws {
        let temporary = try Self.demoStore()
        // The demo registry has the owner of the plate in uk.png (rcp-3d8e52, Erin Example, erin@example.com).
        let engine = Engine()
        let report = try engine.scan(
            contentsOf: Self.plates.appendingPathComponent("uk.png").path,
            ScanRequest(targets: .all, region: .eu, resolvePlateOwner: true, ownerCountry: try Country.parse("GB")), store: temporary.store)
        #expect(report.plates?.first?.text == "LN68XKT")
        #expect(report.symbols.isEmpty)
        #expect(report.resolvedOwner == PlateResolution(status: .resolved, recipient: "rcp-3d8e52", plate: "LN68XKT"))
        let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        #expect(!json.contains("Erin") && !json.contains("erin@"))
        // No plate asked for: no plate read and no owner.
        let codesOnly = try engine.scan(
            contentsOf: Self.plates.appendingPathComponent("uk.png").path, ScanRequest(resolvePlateOwner: true), store: temporary.store)
        #expect(codesOnly.plates == nil && codesOnly.resolvedOwner == nil)
    }

    @Test func plateFromAPhotoResolvesThroughTheCommand() throws {
        let temporary = try Self.demoStore()
        // The demo registry has the owner of the plate in uk.png (rcp-3d8e52, Erin Example, erin@example.com).
        let db = temporary.directory + "/nested/seer.sqlite"
        let uk = Self.plates.appendingPathComponent("uk.png").path
        let json = try SeerBinary.run(["plate", "resolve", "--db", db, "--photo", uk, "--region", "GB", "--format", "json"])
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        #expect(object["status"] as? String == "resolved")
        #expect(object["recipient"] as? String == "rcp-3d8e52")
        #expect(!json.out.contains("Erin") && !json.out.contains("erin@") && !json.err.contains("erin@"))
        #expect(json.err.contains("read LN68XKT"))

        let text = try SeerBinary.run(["plate", "resolve", "--db", db, "--photo", uk])
        #expect(text.status == 0)
        #expect(text.out == "resolved: recipient rcp-3d8e52 (plate LN68XKT)\n")

        // A registered plate nobody owns here; a photo with no plate; a photo that is not there; usage.
        let other = try SeerBinary.run(["plate", "resolve", "--db", db, "--photo", Self.plates.appendingPathComponent("sk.png").path])
        #expect(other.status == 2)
        #expect(other.out == "notRegistered\n")
        let blank = DemoTests.repository.appendingPathComponent("TestImages/decode/gray8.png").path
        let noPlate = try SeerBinary.run(["plate", "resolve", "--db", db, "--format", "json", "--photo", blank])
        #expect(noPlate.status == 2)
        #expect(noPlate.out.contains("\"noPlate\""))
        #expect(try SeerBinary.run(["plate", "resolve", "--db", db, "--photo", "/nonexistent/car.jpg"]).status == 1)
        #expect(try SeerBinary.run(["plate", "resolve", "--db", db]).status == 64)
        #expect(try SeerBinary.run(["plate", "resolve", "--db", db, "AB12CDE", "--photo", uk]).status == 64)
    }
}
