import SeerImage
import SeerPlate
import SeerQR
import SeerStore
import SeerVerify

/// A failure about one input, as the CLI's JSON and the HTTP API show it:
/// `{"file": …, "error": {"code": …, "message": …}}`.
public struct FileFailure: Error, Codable, Sendable, Equatable {
    /// The error's stable code and text.
    public struct Detail: Codable, Sendable, Equatable {
        /// A stable machine-readable code, e.g. `truncated`, `notAnImage`, `tooLarge`.
        public var code: String
        /// What went wrong, in words.
        public var message: String
    }

    /// The input's path (`-` for standard input).
    public var file: String
    /// What went wrong.
    public var error: Detail

    /// Creates a failure record.
    public init(file: String, code: String, message: String) {
        self.file = file
        self.error = Detail(code: code, message: message)
    }

    /// A failure record for an image error.
    public init(file: String, _ error: ImageError) {
        self.init(file: file, code: error.code.rawValue, message: error.message)
    }
}

/// What `seer info` reports for one image: JSON keys `file`, `format`, `width`, `height`, `orientation`.
public struct InfoReport: Codable, Sendable, Equatable {
    /// The input's path.
    public var file: String
    /// `png` or `jpeg`.
    public var format: ImageFormat
    /// Width as displayed (after orientation).
    public var width: Int
    /// Height as displayed (after orientation).
    public var height: Int
    /// The stored EXIF orientation, 1–8 (1 when there is none).
    public var orientation: Int
    /// Width of the stored pixel grid.
    public var storedWidth: Int
    /// Height of the stored pixel grid.
    public var storedHeight: Int

    /// A report for `file` from its header facts.
    public init(file: String, info: ImageInfo) {
        self.file = file
        self.format = info.format
        self.width = info.width
        self.height = info.height
        self.orientation = info.orientation.rawValue
        self.storedWidth = info.storedWidth
        self.storedHeight = info.storedHeight
    }
}

extension FileFailure {
    /// A failure record for any error Seer throws, with its stable code: an image error's code
    /// (`truncated`, `notAnImage`, …), a store error's (`damagedRow`, `notFound`, …), a payload
    /// issue's (`emptyPayload`, …), a typed plate's (`lookAlike`, `emoji`, …), `importRefused`,
    /// `invalidCountry`, Tesseract's language data missing (`missingLanguageData`), and `failed` for
    /// anything else.
    public init(file: String, error: any Error) {
        switch error {
        case let failure as FileFailure: self = failure
        case let error as ImageError: self.init(file: file, error)
        case let error as StoreError: self.init(file: file, code: error.code, message: error.message)
        case let error as ImportError: self.init(file: error.file, code: "importRefused", message: error.description)
        case let error as PayloadIssue: self.init(file: file, code: error.code, message: error.message)
        case let error as PlateTextError: self.init(file: file, code: error.code.rawValue, message: error.message)
        case let error as CountryError: self.init(file: file, code: "invalidCountry", message: error.message)
        case let error as PlateError: self.init(file: file, code: error.code.rawValue, message: error.message)
        default: self.init(file: file, code: "failed", message: "\(error)")
        }
    }
}

/// A photo in which no code was read, as `seer verify` reports it: `{"file", "reason": "noCode",
/// "message"}`; nothing is verified or saved for it.
public struct NoCodeFound: Codable, Sendable, Equatable {
    /// The photo's path (`-` for standard input).
    public var file: String
    /// Always `noCode`.
    public var reason: String
    /// What happened, in words.
    public var message: String

    /// A record for `file`.
    public init(file: String) {
        self.file = file
        self.reason = "noCode"
        self.message = "No code was read in the photo."
    }
}

/// What `seer user add` reports: the new owner's opaque recipient id, canonical plate and country.
/// The name and email are stored but never printed back.
public struct UserReceipt: Codable, Sendable, Equatable {
    /// The opaque recipient id (messages to the plate go to it).
    public var recipient: String
    /// The plate, canonical (A–Z, 0–9).
    public var plate: String
    /// Where the plate is registered.
    public var country: Country

    /// Creates a receipt.
    public init(recipient: String, plate: String, country: Country) {
        self.recipient = recipient
        self.plate = plate
        self.country = country
    }
}
