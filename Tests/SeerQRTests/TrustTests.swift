import Foundation
import SeerCodegen
import SeerImage
import Testing

@testable import SeerQR

/// Every code reported is exactly right, or no code is reported: one test per kind of wrong reading
/// seen on real photos, on images made for it (and, for 1-D codes, real photos where readers went wrong).
@Suite("Readings right or absent")
struct TrustTests {
    static let all = CodeReader.forTests(symbologies: Set(Symbology.allCases))
    static let qr = CodeReader.forTests()

    /// A symbol drawn at `module` pixels a module, turned slightly and softened like a photo.
    static func photo(_ code: QRCode, module: Int = 4) -> GrayImage {
        let flat = code.image(moduleSize: module, quietZone: 6)
        // A small rotation (about 3°) and a box blur: the reader must place the grid itself.
        let angle = 0.05, c = cos(angle), s = sin(angle)
        let w = flat.width, h = flat.height
        let cx = Double(w) / 2, cy = Double(h) / 2
        return flat.pixels.withUnsafeBufferPointer { p in
            GrayImage(width: w, height: h) { x, y in
                let dx = Double(x) - cx, dy = Double(y) - cy
                let sx = c * dx + s * dy + cx, sy = -s * dx + c * dy + cy
                var sum = 0.0
                for (ox, oy) in [(0.0, 0.0), (0.5, 0), (-0.5, 0), (0, 0.5), (0, -0.5)] {
                    sum += Imaging.sampleFloat(p, w, h, sx + ox, sy + oy)
                }
                return UInt8(sum / 5)
            }
        }
    }

    @Test("a Kanji-mode segment comes out as its characters, not half-width katakana")
    func kanji() throws {
        let text = "東京都千代田区丸の内一丁目"
        let symbols = try Self.qr.read(Self.photo(QREncoder.encode(segments: [.kanji(text)])))
        #expect(symbols.map(\.text) == [text])
        #expect(symbols.first?.charset == "shift_jis")
    }

    @Test("byte and Kanji segments together: each in its own character set")
    func mixed() throws {
        let code = try QREncoder.encode(segments: [.bytes(Array("Preis: ".utf8)), .kanji("千円"), .bytes(Array(" — café".utf8))])
        #expect(Self.qr.read(Self.photo(code)).map(\.text) == ["Preis: 千円 — café"])
    }

    @Test("a long payload comes out whole", arguments: [600, 1500])
    func longPayload(_ length: Int) throws {
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        var text = ""
        for i in 0..<length { text.append(letters[(i * 7 + i / 26) % 26]) }
        let symbols = try Self.qr.read(Self.photo(QREncoder.encode(text, errorCorrection: .low), module: 3))
        #expect(symbols.count == 1)
        #expect(symbols.first?.text == text)
    }

    @Test("an ECI names the character set of the bytes that follow")
    func eci() throws {
        let code = try QREncoder.encode(segments: [.eci(22), .bytes([0xCF, 0xF0, 0xE8, 0xE2, 0xE5, 0xF2])])  // windows-1251
        #expect(Self.qr.read(Self.photo(code)).map(\.text) == ["Привет"])
    }

    @Test("a structured-append symbol is reported as such, with its own part of the message")
    func structuredAppend() throws {
        let code = try QREncoder.encode(segments: [.structuredAppend(index: 2, count: 4, parity: 0x31), .bytes(Array("third part".utf8))])
        let symbol = try #require(Self.qr.read(Self.photo(code)).first)
        #expect(symbol.text == "third part")
        #expect(symbol.structuredAppend == StructuredAppend(index: 2, count: 4, parity: 0x31))
    }

    @Test("binary data has no text, and keeps its bytes")
    func binary() throws {
        let bytes: [UInt8] = [0x00, 0x01, 0xFE, 0xFF, 0x80, 0x10]
        let symbols = try Self.qr.read(Self.photo(QREncoder.encode(bytes: bytes, mode: .byte)))
        #expect(symbols.map(\.bytes) == [bytes])
        #expect(symbols.first?.text == nil)
    }

    // MARK: 1-D

    struct Drawn: Decodable {
        var symbology: String
        var text: String
        var orNothing: Bool?
    }

    static let codes = Fixtures.root.appendingPathComponent("TestImages/codes")
    static let drawn: [String: Drawn] = {
        guard let data = try? Data(contentsOf: codes.appendingPathComponent("manifest.json")) else { return [:] }
        return (try? JSONDecoder().decode([String: Drawn].self, from: data)) ?? [:]
    }()

    @Test("the drawn 1-D fixtures are there")
    func drawnPresent() {
        #expect(Self.drawn.count >= 9)
    }

    @Test("drawn 1-D codes: the printed text, or nothing where the bars were damaged", arguments: drawn.keys.sorted())
    func drawnCodes(_ name: String) throws {
        let entry = try #require(Self.drawn[name])
        let image = try Fixtures.gray(Self.codes.appendingPathComponent(name).path)
        let symbols = Self.all.read(image)
        let texts = symbols.compactMap(\.text)
        if entry.orNothing == true {
            #expect(texts.allSatisfy { $0 == entry.text }, "\(name): \(texts)")
        } else {
            #expect(texts == [entry.text], "\(name): \(texts)")
        }
    }

    @Test("Code 128 with FNC4: the extended letters, not their ASCII halves")
    func code128Extended() throws {
        let image = try Fixtures.gray(Self.codes.appendingPathComponent("code128-fnc4.png").path)
        let symbol = try #require(Self.all.read(image).first)
        #expect(symbol.symbology == .code128)
        #expect(symbol.text == "Größe: 12 µm")
        #expect(symbol.bytes == Array("Größe: 12 µm".unicodeScalars.map { UInt8($0.value) }))
    }

    @Test("Code 39 Full ASCII pairs decoded; plain Code 39 text with a lone shift character kept")
    func code39FullASCII() {
        #expect(LinearCheck.code39FullASCII("+H+E+L+L+O") == "hello")
        #expect(LinearCheck.code39FullASCII("%U$A/A%V") == "\u{0}\u{1}!@")
        #expect(LinearCheck.code39FullASCII("10% OFF") == nil)
        #expect(LinearCheck.code39FullASCII("ABC-123") == nil)
    }

    /// Real photos (zxing-cpp's samples, Apache-2.0) where readers return a different valid EAN-13 or
    /// two different readings: Seer reports the expected number or nothing.
    static let photos: [String] = {
        let dir = codes.appendingPathComponent("zxing")
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasSuffix(".png") }.sorted()
    }()

    @Test(
        "UPC-A photos that read as another EAN-13: the printed number or nothing, at every preset",
        arguments: photos, [CodeReader.Preset.fast, .balanced])
    func upcaPhotos(_ name: String, _ preset: CodeReader.Preset) throws {
        let dir = Self.codes.appendingPathComponent("zxing")
        let expected = try String(contentsOf: dir.appendingPathComponent(String(name.dropLast(4)) + ".txt"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let reader = CodeReader.forTests(symbologies: Set(Symbology.allCases), preset: preset)
        let symbols = reader.read(try Fixtures.gray(dir.appendingPathComponent(name).path))
        for s in symbols {
            let text = try #require(s.text)
            // UPC-A is EAN-13 with a leading zero.
            #expect(text == expected || "0" + text == expected, "\(name) (\(preset)): read \(text), printed \(expected)")
        }
    }

    @Test("a photo reads the same whatever the reader read before it")
    func readingDoesNotDependOnEarlierPhotos() throws {
        // zbar's EAN decoder keeps the halves of the last symbol it saw: read after the first photo
        // by the same scanner, the second once read as 4000539769443, half of each.
        let dir = Self.codes.appendingPathComponent("zxing")
        let first = try Fixtures.gray(dir.appendingPathComponent("ean13-1-14.png").path)
        let second = try Fixtures.gray(dir.appendingPathComponent("ean13-1-20.png").path)
        let alone = CodeReader.forTests(symbologies: Set(Symbology.allCases), preset: .fast).read(second).compactMap(\.text)
        let reader = CodeReader.forTests(symbologies: Set(Symbology.allCases), preset: .fast)
        _ = reader.read(first)
        let after = reader.read(second).compactMap(\.text)
        #expect(after == alone)
        #expect(after.allSatisfy { $0 == "4000539017100" }, "read \(after)")
    }

    @Test("a UPC-E is never found inside a UPC-A")
    func noUPCEInsideUPCA() throws {
        let image = try Fixtures.gray(Self.codes.appendingPathComponent("upca-036000291452.png").path)
        let symbols = Self.all.read(image)
        #expect(!symbols.contains { $0.symbology == .upce || $0.symbology == .ean8 })
        #expect(symbols.compactMap(\.text).contains { $0 == "036000291452" || $0 == "0036000291452" })
    }
}
