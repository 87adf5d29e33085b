internal import CTesseract
import Foundation
import SeerImage
import Synchronization

/// Why the OCR engine could not start.
public struct PlateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Code: String, Sendable, Codable {
        /// The language data (`eng.traineddata`) was not found where Tesseract looks for it.
        case missingLanguageData
        /// Tesseract refused to start for another reason.
        case ocrInitFailed
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

/// One recognised glyph from the OCR engine, with its alternatives.
struct OCRSymbol: Sendable {
    /// The best character.
    var character: Character
    /// Its confidence, 0–1.
    var confidence: Double
    /// Other characters the engine considered, with confidences 0–1 (best first, may include `character`).
    var choices: [(Character, Double)]
    /// Left and right edge of the glyph in the image given, pixels.
    var x0: Int
    var x1: Int
}

/// Where Tesseract's language data lives when the caller names no folder: the Debian locations.
/// (The `seer` executable passes `TESSDATA_PREFIX` on as the folder; the library reads no environment.)
func tessdataDirectory() -> String {
    for dir in ["/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata", "/usr/share/tessdata"]
    where FileManager.default.fileExists(atPath: dir + "/eng.traineddata") {
        return dir
    }
    return "/usr/share/tesseract-ocr/5/tessdata"
}

/// Owns one `TessBaseAPI` (LSTM engine, English model, A–Z 0–9 only). Not thread-safe: use one per
/// worker, through ``TesseractPool``.
final class TesseractReader {
    private let api: OpaquePointer

    /// Page layout the next read assumes.
    enum Layout: Int32 {
        /// One line of text (`PSM_SINGLE_LINE`).
        case line = 7
        /// One word (`PSM_SINGLE_WORD`).
        case word = 8
        /// One character (`PSM_SINGLE_CHAR`).
        case character = 10
    }

    /// Starts Tesseract with the `eng` model from `directory`. The corresponding C functions are
    /// `TessBaseAPICreate` and `TessBaseAPIInit4`.
    init(directory: String) throws {
        let file = directory + "/eng.traineddata"
        guard FileManager.default.fileExists(atPath: file) else {
            throw PlateError(
                code: .missingLanguageData,
                message: "Tesseract language data not found: \(file). Install tesseract-ocr-eng, or name the folder holding eng.traineddata (Engine.Configuration.tessdata; seer: --tessdata or TESSDATA_PREFIX).")
        }
        guard let api = TessBaseAPICreate() else {
            throw PlateError(code: .ocrInitFailed, message: "Tesseract could not allocate an API object.")
        }
        let names = ["load_system_dawg", "load_freq_dawg", "load_punc_dawg", "load_number_dawg", "load_unambig_dawg", "load_bigram_dawg"]
        let status = withCStrings(names) { keys in
            withCStrings(Array(repeating: "0", count: names.count)) { values in
                TessBaseAPIInit4(api, directory, "eng", OEM_LSTM_ONLY, nil, 0, keys, values, names.count, 0)
            }
        }
        if status != 0 {
            TessBaseAPIDelete(api)
            throw PlateError(code: .ocrInitFailed, message: "Tesseract failed to load the eng model from \(directory).")
        }
        self.api = api
        TessBaseAPISetVariable(api, "tessedit_char_whitelist", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        TessBaseAPISetVariable(api, "lstm_choice_mode", "2")
        TessBaseAPISetVariable(api, "debug_file", "/dev/null")
    }

    deinit {
        TessBaseAPIEnd(api)
        TessBaseAPIDelete(api)
    }

    /// Reads `image` (dark text on light ground) and returns its glyphs, left to right.
    func read(_ image: GrayImage, layout: Layout) -> [OCRSymbol] {
        TessBaseAPISetPageSegMode(api, TessPageSegMode(rawValue: UInt32(layout.rawValue)))
        image.pixels.withUnsafeBufferPointer { buffer in
            TessBaseAPISetImage(api, buffer.baseAddress, Int32(image.width), Int32(image.height), 1, Int32(image.width))
        }
        TessBaseAPISetSourceResolution(api, 300)
        defer { TessBaseAPIClear(api) }
        // Tesseract's LSTM opens OpenMP teams of up to four threads. Seer runs one reader per core,
        // so the teams would only oversubscribe the machine (2.9× the CPU per photo, measured, most
        // of it spin-waiting): with no active level allowed, this thread's teams have one thread.
        omp_set_max_active_levels(0)
        guard TessBaseAPIRecognize(api, nil) == 0, let iterator = TessBaseAPIGetIterator(api) else { return [] }
        defer { TessResultIteratorDelete(iterator) }
        var symbols: [OCRSymbol] = []
        let level = RIL_SYMBOL
        repeat {
            guard let raw = TessResultIteratorGetUTF8Text(iterator, level) else { continue }
            let text = String(cString: raw)
            TessDeleteText(raw)
            guard let character = text.first else { continue }
            let confidence = Double(TessResultIteratorConfidence(iterator, level)) / 100
            var choices: [(Character, Double)] = []
            if let choice = TessResultIteratorGetChoiceIterator(iterator) {
                repeat {
                    if let c = TessChoiceIteratorGetUTF8Text(choice), let ch = String(cString: c).first {
                        choices.append((ch, Double(TessChoiceIteratorConfidence(choice)) / 100))
                    }
                } while TessChoiceIteratorNext(choice) != 0
                TessChoiceIteratorDelete(choice)
            }
            var left: Int32 = 0, top: Int32 = 0, right: Int32 = 0, bottom: Int32 = 0
            let page = TessResultIteratorGetPageIteratorConst(iterator)
            TessPageIteratorBoundingBox(page, level, &left, &top, &right, &bottom)
            symbols.append(OCRSymbol(character: character, confidence: max(0, min(1, confidence)), choices: choices, x0: Int(left), x1: Int(right)))
        } while TessResultIteratorNext(iterator, level) != 0
        return symbols
    }
}

private func withCStrings<R>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    defer { for p in pointers { free(p) } }
    return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
}

/// A pool of ``TesseractReader``s: each is created once, lent to one caller at a time and reused.
final class TesseractPool: Sendable {
    private let directory: String
    private let idle = Mutex<[Int]>([])
    private let readers: Mutex<[Int: UncheckedReader]> = Mutex([:])
    private let counter = Mutex(0)

    private struct UncheckedReader: @unchecked Sendable { let reader: TesseractReader }

    init(directory: String) { self.directory = directory }

    /// Runs `body` with a reader no other thread is using.
    func withReader<R>(_ body: (TesseractReader) throws -> R) throws -> R {
        let id: Int
        if let taken = idle.withLock({ $0.popLast() }) {
            id = taken
        } else {
            let reader = try TesseractReader(directory: directory)
            id = counter.withLock { value in value += 1; return value }
            readers.withLock { $0[id] = UncheckedReader(reader: reader) }
        }
        defer { idle.withLock { $0.append(id) } }
        let reader = readers.withLock { $0[id]!.reader }
        return try body(reader)
    }
}
