internal import CSeerLoader

/// Why codes could not be read at all (not a problem with one photo).
public struct CodeReaderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Code: String, Sendable, Codable {
        /// The zbar library (`libzbar.so.0`) could not be loaded, or lacks a function Seer calls.
        case libraryMissing
    }

    /// A stable machine-readable code.
    public var code: Code
    /// What went wrong and what to do about it.
    public var message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}

/// Loading libzbar, which Seer opens on first use rather than linking (see `CSeerLoader`).
enum ZBarLibrary {
    /// Loads libzbar once and checks every function Seer calls; later calls are cheap.
    ///
    /// - Throws: ``CodeReaderError`` `libraryMissing` with the loader's reason.
    static func load() throws(CodeReaderError) {
        var reason = [CChar](repeating: 0, count: 300)
        guard seer_loader_open(Int32(SEER_LIBRARY_ZBAR), &reason, reason.count) == 0 else {
            let text = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw CodeReaderError(code: .libraryMissing, message: "\(text). Install libzbar0 (Debian).")
        }
    }
}
