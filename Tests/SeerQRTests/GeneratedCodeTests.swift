import Foundation
import SeerImage
import Testing

@testable import SeerQR

@Suite("Generated codes")
struct GeneratedCodeTests {
    static let reader = CodeReader.forTests()

    @Test("the manifest lists the fixtures")
    func manifestPresent() {
        #expect(Fixtures.manifest.count >= 60)
    }

    @Test("QR text read exactly", arguments: Fixtures.entries { $0.texts != nil && $0.symbology == nil })
    func qrText(_ entry: Fixtures.Entry) throws {
        let image = try Fixtures.gray(Fixtures.generated.appendingPathComponent(entry.file).path)
        let symbols = Self.reader.read(image)
        let expected = try #require(entry.texts)
        #expect(symbols.compactMap(\.text).sorted() == expected.sorted(), "\(entry.file): \(entry.note)")
        #expect(symbols.allSatisfy { $0.symbology == .qr })
    }

    @Test("binary payloads keep their bytes and have no text", arguments: Fixtures.entries { $0.bytes != nil })
    func binary(_ entry: Fixtures.Entry) throws {
        let image = try Fixtures.gray(Fixtures.generated.appendingPathComponent(entry.file).path)
        let symbols = Self.reader.read(image)
        let expected = try #require(entry.bytes).compactMap { Data(base64Encoded: $0).map { [UInt8]($0) } }
        #expect(symbols.map(\.bytes) == expected)
        #expect(symbols.allSatisfy { $0.text == nil })
    }

    @Test("linear symbologies when asked", arguments: Fixtures.entries { $0.symbology != nil })
    func linear(_ entry: Fixtures.Entry) throws {
        let symbology = try #require(Symbology(rawValue: entry.symbology ?? ""))
        let reader = CodeReader.forTests(symbologies: [symbology])
        let image = try Fixtures.gray(Fixtures.generated.appendingPathComponent(entry.file).path)
        let symbols = reader.read(image)
        #expect(symbols.map(\.symbology) == [symbology])
        #expect(symbols.compactMap(\.text) == entry.texts)
        // QR only (the default) does not report linear codes.
        #expect(Self.reader.read(image).isEmpty)
    }

    @Test("corners: an upright code's corners go TL, TR, BR, BL around it")
    func uprightCorners() throws {
        let image = try Fixtures.gray(Fixtures.generated.appendingPathComponent("rotate-000.png").path)
        let symbol = try #require(Self.reader.read(image).first)
        let c = symbol.corners
        try #require(c.count == 4)
        #expect(c[0].x < c[1].x && c[3].x < c[2].x)
        #expect(c[0].y < c[3].y && c[1].y < c[2].y)
        for p in c {
            #expect(p.x >= 0 && p.y >= 0 && p.x <= Double(image.width) && p.y <= Double(image.height))
        }
        // The code (5 px modules, 4-module quiet zone, 20 px margin) starts 40 px in.
        #expect(abs(c[0].x - 40) < 4 && abs(c[0].y - 40) < 4)
    }

    @Test("corners follow the code when it is turned", arguments: [90, 180, 270])
    func turnedCorners(_ angle: Int) throws {
        let name = String(format: "rotate-%03d.png", angle)
        let image = try Fixtures.gray(Fixtures.generated.appendingPathComponent(name).path)
        let symbol = try #require(Self.reader.read(image).first)
        let c = symbol.corners
        try #require(c.count == 4)
        // PIL rotates counter-clockwise: the code's top-left corner moves to BL (90), BR (180), TR (270).
        let cx = symbol.center.x, cy = symbol.center.y
        switch angle {
        case 90: #expect(c[0].x < cx && c[0].y > cy)
        case 180: #expect(c[0].x > cx && c[0].y > cy)
        default: #expect(c[0].x > cx && c[0].y < cy)
        }
    }

    @Test("several codes in one image are all found, once each")
    func several() throws {
        let image = try Fixtures.gray(Fixtures.generated.appendingPathComponent("several-4.png").path)
        let symbols = Self.reader.read(image)
        #expect(symbols.count == 4)
        let centres = symbols.map(\.center)
        for i in 0..<centres.count {
            for j in (i + 1)..<centres.count {
                #expect(abs(centres[i].x - centres[j].x) + abs(centres[i].y - centres[j].y) > 100)
            }
        }
    }

    @Test("scale factors map corners to full-size coordinates")
    func scaled() throws {
        let image = try Fixtures.gray(Fixtures.generated.appendingPathComponent("rotate-000.png").path)
        let a = try #require(Self.reader.read(image).first)
        let b = try #require(Self.reader.read(image, scaleX: 2, scaleY: 3).first)
        for (p, q) in zip(a.corners, b.corners) {
            #expect(abs(p.x * 2 - q.x) < 0.01 && abs(p.y * 3 - q.y) < 0.01)
        }
    }

    @Test("every preset reads a clean code", arguments: CodeReader.Preset.allCases)
    func presets(_ preset: CodeReader.Preset) throws {
        let reader = CodeReader.forTests(preset: preset)
        let image = try Fixtures.gray(Fixtures.generated.appendingPathComponent("payload-ascii-url.png").path)
        #expect(reader.read(image).compactMap(\.text) == ["https://example.com/p/8741?lot=A12"])
    }

    @Test("blank and tiny images read nothing and do not fail")
    func blank() throws {
        #expect(Self.reader.read(GrayImage(width: 300, height: 200, fill: 255)).isEmpty)
        #expect(Self.reader.read(GrayImage(width: 3, height: 3, fill: 0)).isEmpty)
        let noise = GrayImage(width: 256, height: 256) { x, y in UInt8(truncatingIfNeeded: (x * 7919 + y * 104729) >> 3) }
        #expect(Self.reader.read(noise).isEmpty)
    }

    @Test("one reader shared by many threads")
    func concurrent() async throws {
        let image = try Fixtures.gray(Fixtures.generated.appendingPathComponent("several-4.png").path)
        let reader = Self.reader
        let counts = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { reader.read(image).count } }
            var all: [Int] = []
            for await c in group { all.append(c) }
            return all
        }
        #expect(counts == Array(repeating: 4, count: 8))
    }
}
