/// Why an image could not be read. Every failure names its input and what to do about it.
public struct ImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure, stable across releases: use it in code and in JSON (`code`).
    public enum Code: String, Sendable, Codable, CaseIterable {
        /// The file or buffer holds no bytes.
        case empty
        /// The bytes are not an image in any format Seer knows.
        case notAnImage
        /// A known image format that Seer does not decode (GIF, AVIF, BMP, TIFF, …).
        case unsupportedFormat
        /// An image whose data ends before the image does.
        case truncated
        /// An image whose data breaks the format's rules (or is damaged in a way the decoder detects).
        case corrupt
        /// Width × height is over the configured pixel limit, or decoding would take more work, memory,
        /// CPU time or wall time than its budget allows (``DecodeBudget``, ``DecodeOptions/workLimit``,
        /// ``DecodeOptions/timeLimit``).
        case tooLarge
        /// The file could not be opened or read.
        case unreadable
        /// Memory ran short while decoding.
        case outOfMemory
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong, in words.
    public var message: String
    /// The file (or other source) the failure is about, when known.
    public var source: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, source: String? = nil) {
        self.code = code
        self.message = message
        self.source = source
    }

    /// The same error, attributed to `source`.
    public func from(_ source: String) -> ImageError {
        var copy = self
        copy.source = source
        return copy
    }

    /// `source: message`, or the message alone when the source is unknown.
    public var description: String {
        if let source { return "\(source): \(message)" }
        return message
    }
}
