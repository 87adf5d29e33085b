import SeerPlate
import Synchronization

@_exported import enum SeerPlate.PlateRegion
@_exported import struct SeerPlate.PlateReading
@_exported import struct SeerPlate.PlateGrammar
@_exported import struct SeerPlate.PlateNormalization
@_exported import struct SeerPlate.PlateError
@_exported import enum SeerPlate.OCRThreads
@_exported import class SeerPlate.PlateReader

/// One plate reader per process: Tesseract's model is loaded once per worker and reused.
private let sharedPlateReader = Mutex<PlateReader?>(nil)

extension Engine {
    /// The plate reader, created on first use (loads Tesseract's `eng` model).
    /// - Throws: ``PlateError`` when the language data is missing.
    public func plateReader() throws -> PlateReader {
        try sharedPlateReader.withLock { reader in
            if let reader { return reader }
            let made = try PlateReader()
            reader = made
            return made
        }
    }

    /// Finds and reads the licence plates in a decoded photo.
    /// - Parameters:
    ///   - image: the photo, decoded at any scale; corners come back in the full-size displayed photo.
    ///   - region: the region whose grammars decide the reading, or nil to try all.
    /// - Returns: plates, most trustworthy first; empty when none was found.
    /// - Throws: ``PlateError`` when Tesseract cannot start.
    public func readPlates(in image: DecodedImage, region: PlateRegion?) throws -> [PlateReading] {
        try plateReader().read(image.gray, region: region, scaleX: image.scaleX, scaleY: image.scaleY)
    }

    /// Decodes the photo at `path` and reads its plates.
    public func readPlates(contentsOf path: String, region: PlateRegion?) throws -> [PlateReading] {
        try readPlates(in: decode(contentsOf: path), region: region)
    }

    /// Decodes a photo held in memory and reads its plates.
    public func readPlates(_ bytes: [UInt8], region: PlateRegion?) throws -> [PlateReading] {
        try readPlates(in: decode(bytes), region: region)
    }

    /// Checks a typed plate against the region grammars: canonical form, format matched and the
    /// grammar-valid confusion variants (O/0, I/1, B/8, …) to try in plate look-ups.
    public func normalizePlate(_ text: String, region: PlateRegion?) -> PlateNormalization {
        PlateGrammar.standard.normalize(text, region: region)
    }
}
