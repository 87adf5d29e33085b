import Foundation
import SeerCodegen
import SeerImage
import Testing

struct Reference: Decodable, CustomTestStringConvertible, Sendable {
    var payload: String
    var mode: String
    var version: Int
    var level: String
    var mask: Int
    var maskGiven: Bool
    var versionGiven: Bool
    var rows: [String]

    var testDescription: String { "v\(version)-\(level) mask \(mask) \(mode) \(payload.prefix(24))" }

    static let all: [Reference] = {
        guard let url = Bundle.module.url(forResource: "reference", withExtension: "json", subdirectory: "Fixtures"),
            let data = try? Data(contentsOf: url)
        else { return [] }
        return (try? JSONDecoder().decode([Reference].self, from: data)) ?? []
    }()
}

/// Module-for-module comparison with symbols made by another encoder (python-qrcode 8.2; see
/// Benchmarks/verify/qr_reference.py).
@Suite struct QREncoderTests {
    @Test func referencesAreLoaded() {
        #expect(Reference.all.count >= 30)
    }

    @Test(arguments: Reference.all)
    func sameModulesAsTheReference(_ reference: Reference) throws {
        let level = try #require(QRErrorCorrection(rawValue: reference.level))
        let mode = try #require(QRMode(rawValue: reference.mode))
        // Same version and mask: every module must agree.
        let forced = try QREncoder.encode(
            reference.payload, errorCorrection: level, mode: mode, minVersion: reference.version, maxVersion: reference.version,
            mask: reference.mask)
        #expect(forced.text == reference.rows.joined(separator: "\n"))
        // Our own choices: the smallest version that fits, and the mask with the lowest penalty.
        let chosen = try QREncoder.encode(
            reference.payload, errorCorrection: level, mode: mode,
            minVersion: reference.versionGiven ? reference.version : 1, maxVersion: reference.versionGiven ? reference.version : 40,
            mask: reference.maskGiven ? reference.mask : nil)
        #expect(chosen.version == reference.version)
        if reference.maskGiven { #expect(chosen == forced) }
        // The automatic choice is a valid symbol of its own mask, and the mask the reference script's
        // independent scoring of the standard's four penalty rules picked.
        let again = try QREncoder.encode(
            reference.payload, errorCorrection: level, mode: mode, minVersion: chosen.version, maxVersion: chosen.version,
            mask: chosen.mask)
        #expect(again == chosen)
        #expect(chosen.mask == reference.mask, "automatic mask")
    }

    @Test func modesAreChosenFromTheData() throws {
        #expect(try QREncoder.encode("0123456789").mode == .numeric)
        #expect(try QREncoder.encode("HTTPS://EXAMPLE.COM/01").mode == .alphanumeric)
        #expect(try QREncoder.encode("https://example.com").mode == .byte)
        #expect(try QREncoder.encode(bytes: [0, 255, 0x1D]).mode == .byte)
    }

    @Test func capacityLimitsAreErrors() throws {
        #expect(throws: QREncodingError.self) { try QREncoder.encode(bytes: [UInt8](repeating: 97, count: 2954), errorCorrection: .low) }
        // 2953 bytes is the most a version-40-L symbol holds.
        #expect(try QREncoder.encode(bytes: [UInt8](repeating: 97, count: 2953), errorCorrection: .low).version == 40)
        #expect(throws: QREncodingError.self) { try QREncoder.encode("x", mask: 8) }
        #expect(throws: QREncodingError.self) { try QREncoder.encode("x", minVersion: 0) }
        #expect(throws: QREncodingError.self) { try QREncoder.encode("abc", mode: .numeric) }
    }

    @Test func rendersWithQuietZone() throws {
        let code = try QREncoder.encode("Seer")
        let image = code.image(moduleSize: 3, quietZone: 4)
        #expect(image.width == (code.size + 8) * 3 && image.height == image.width)
        // Quiet zone white; the top-left finder's corner black.
        #expect(image.pixels[0] == 255)
        #expect(image.pixels[12 * image.width + 12] == 0)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("seer-qr-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try PNGWriter.write(image, to: path)
        let decoded = try ImageDecoder.decode(contentsOf: path)
        #expect(decoded.gray == image)
    }
}
