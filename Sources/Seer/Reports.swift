import SeerImage

/// A failure about one input, as the CLI's JSON and the HTTP API show it:
/// `{"file": …, "error": {"code": …, "message": …}}`.
public struct FileFailure: Codable, Sendable, Equatable {
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
