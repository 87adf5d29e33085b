import Foundation
import SeerImage
import Testing

@testable import SeerQR

/// The ZXing black-box photos copied into TestImages (Apache-2.0, see its NOTICE).
@Suite("ZXing photos")
struct ZXingPhotoTests {
    static let photos = Fixtures.zxingPhotos()
    static let reader = CodeReader.forTests()

    @Test("never a wrong text", arguments: photos.map(\.path))
    func neverWrong(_ path: String) throws {
        let expected = try #require(Self.photos.first { $0.path == path }?.expected)
        let image = try ImageDecoder.decode(contentsOf: path).gray
        let texts = Self.reader.read(image).compactMap(\.text).map(Fixtures.droppingNewline)
        // Reading nothing is allowed here (counted below); reading something means reading the right
        // text (a photo may hold a second, different code besides the expected one).
        if !texts.isEmpty { #expect(texts.contains(expected), "\(path): \(texts)") }
    }

    @Test("at least 97 % read exactly")
    func rate() throws {
        try #require(Self.photos.count >= 70)
        var correct = 0
        for (path, expected) in Self.photos {
            let image = try ImageDecoder.decode(contentsOf: path).gray
            if Self.reader.read(image).contains(where: { $0.text.map(Fixtures.droppingNewline) == expected }) {
                correct += 1
            }
        }
        #expect(Double(correct) / Double(Self.photos.count) >= 0.97, "\(correct) of \(Self.photos.count)")
    }
}
