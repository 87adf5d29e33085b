import SeerPlate

extension Engine {
    /// The engine's plate reader, made on first use with ``Configuration/plates`` and
    /// ``Configuration/tessdata`` (it starts one Tesseract engine; more are started as workers need them).
    /// - Throws: ``PlateError`` when libtesseract cannot be loaded or its language data is missing.
    public func plateReader() throws -> PlateReader {
        try plates.withLock { reader in
            if let reader { return reader }
            let made = try PlateReader(options: configuration.plates, tessdata: configuration.tessdata, logger: configuration.logger)
            logger.debug("plate reader started", metadata: ["tessdata": "\(configuration.tessdata ?? "Debian default")"])
            reader = made
            return made
        }
    }

    /// Finds and reads the licence plates in a decoded photo.
    /// - Parameters:
    ///   - image: the photo, decoded at any scale; corners come back in the full-size displayed photo.
    ///   - region: the region whose grammars decide the reading, or nil to try all.
    ///   - minimumConfidence: readings below this ``PlateReading/confidence`` are left out; nil
    ///     takes the reader's ``PlateReader/Options/minimumConfidence``.
    ///   - limitMilliseconds: CPU milliseconds the reading may take at most, when less than the
    ///     reader's own budget (nil: its budget).
    /// - Returns: plates, most trustworthy first; empty when none was found.
    /// - Throws: ``PlateError`` when Tesseract cannot start.
    public func readPlates(
        in image: DecodedImage, region: PlateRegion?, minimumConfidence: Double? = nil, limitMilliseconds: Double? = nil
    ) throws -> [PlateReading] {
        try plateReader().read(
            image.gray, region: region, scaleX: image.scaleX, scaleY: image.scaleY, minimumConfidence: minimumConfidence,
            limitMilliseconds: limitMilliseconds)
    }

    /// Decodes the photo at `path` and reads its plates.
    public func readPlates(contentsOf path: String, region: PlateRegion?, minimumConfidence: Double? = nil) throws -> [PlateReading] {
        try readPlates(in: decode(contentsOf: path), region: region, minimumConfidence: minimumConfidence)
    }

    /// Decodes a photo held in memory and reads its plates.
    public func readPlates(_ bytes: [UInt8], region: PlateRegion?, minimumConfidence: Double? = nil) throws -> [PlateReading] {
        try readPlates(in: decode(bytes), region: region, minimumConfidence: minimumConfidence)
    }

    /// Decodes a photo held in memory and reads its plates, as `seer plate read` reports them.
    public func plateReport(_ bytes: [UInt8], file: String, region: PlateRegion?) throws -> PlateReport {
        let image = try decode(bytes)
        return PlateReport(file: file, info: image.info, plates: try readPlates(in: image, region: region))
    }

    /// Checks a typed plate against the region grammars: canonical form, format matched and the
    /// grammar-valid confusion variants (O/0, I/1, B/8, …) to try in plate look-ups.
    ///
    /// - Throws: ``PlateTextError`` when the text cannot be a plate (another script's look-alike
    ///   letters, emoji, symbols, control characters, too short or too long), saying why.
    public func normalizePlate(_ text: String, region: PlateRegion?) throws(PlateTextError) -> PlateNormalization {
        let canonical = try PlateText.validate(text)
        return PlateGrammar.standard.normalize(canonical, region: region)
    }
}

/// What `seer plate read` reports for one photo: `file`, `width`, `height`, `orientation` (as
/// `seer info` reports them) and `plates`, most trustworthy first.
public struct PlateReport: Codable, Sendable, Equatable {
    /// The input's path (`-` for standard input).
    public var file: String
    /// Width as displayed (after orientation).
    public var width: Int
    /// Height as displayed (after orientation).
    public var height: Int
    /// The stored EXIF orientation, 1–8.
    public var orientation: Int
    /// The plates read, most trustworthy first; empty when none was found.
    public var plates: [PlateReading]

    /// Creates a report.
    public init(file: String, info: ImageInfo, plates: [PlateReading]) {
        self.file = file
        self.width = info.width
        self.height = info.height
        self.orientation = info.orientation.rawValue
        self.plates = plates
    }
}
