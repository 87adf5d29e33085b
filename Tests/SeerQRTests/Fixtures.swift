import Foundation
import SeerImage
import SeerQR

/// Locates `TestImages/qr` from this file's path and reads the generated fixtures' manifest.
enum Fixtures {
    /// `NAME.png` of `directory`, grey.
    static func gray(_ name: String, in directory: URL) throws -> GrayImage {
        try gray(directory.appendingPathComponent(name + ".png").path)
    }

    /// `NAME.txt` of `directory`: the text an image holds, one trailing newline dropped.
    static func expected(_ name: String, in directory: URL) throws -> String {
        let data = try Data(contentsOf: directory.appendingPathComponent(name + ".txt"))
        return droppingNewline(String(decoding: data, as: UTF8.self))
    }

    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let qrDirectory = root.appendingPathComponent("TestImages/qr")
    static let generated = qrDirectory.appendingPathComponent("generated")
    static let zxing = qrDirectory.appendingPathComponent("zxing")

    struct Entry: Decodable, Sendable, CustomStringConvertible {
        var file: String
        var note: String
        var texts: [String]?
        var bytes: [String]?
        var symbology: String?
        var description: String { file }
    }

    static let manifest: [Entry] = {
        let url = generated.appendingPathComponent("manifest.json")
        guard let data = try? Data(contentsOf: url),
            let entries = try? JSONDecoder().decode([Entry].self, from: data)
        else { return [] }
        return entries
    }()

    static func entries(_ predicate: (Entry) -> Bool) -> [Entry] { manifest.filter(predicate) }

    static func gray(_ path: String) throws -> GrayImage {
        try ImageDecoder.decode(contentsOf: path).gray
    }

    /// The text without one trailing line break (as the photo collection's scoring compares).
    static func droppingNewline(_ s: String) -> String {
        var t = s
        if t.hasSuffix("\r\n") || t.hasSuffix("\n") { t.removeLast() }
        return t
    }

    /// The ZXing photos with their expected texts (one trailing newline dropped).
    static func zxingPhotos() -> [(path: String, expected: String)] {
        var out: [(String, String)] = []
        for set in ["qrcode-2", "qrcode-3"] {
            let dir = zxing.appendingPathComponent(set)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            for name in names.sorted() where name.hasSuffix(".png") {
                let txt = dir.appendingPathComponent(String(name.dropLast(4)) + ".txt")
                guard let data = try? Data(contentsOf: txt) else { continue }
                let text = droppingNewline(String(decoding: data, as: UTF8.self))
                out.append((dir.appendingPathComponent(name).path, text))
            }
        }
        return out
    }
}

extension CodeReader {
    /// A reader for tests: the preset's passes with its budget as an optimised build spends it.
    /// Unoptimised test builds run the same passes ten to fifty times slower (an EAN-13 beside a
    /// DataBar Limited: 14 ms optimised, 715 ms not), and more on a machine whose cores share their
    /// caches with other tests, so a budget set for optimised code would cut them short and the
    /// tests would measure the build and the machine, not the reader.
    static func forTests(symbologies: Set<Symbology> = [.qr], preset: Preset = .balanced) -> CodeReader {
        #if DEBUG
        let scale = 40
        #else
        let scale = 1
        #endif
        return CodeReader(options: .init(
            symbologies: symbologies, preset: preset, timeBudgetMilliseconds: preset.defaultBudgetMilliseconds * scale))
    }
}
