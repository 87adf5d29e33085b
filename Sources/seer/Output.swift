import ArgumentParser
import Foundation
import Seer

/// How a command prints its results.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    case text, json
}

/// Writes lines to standard output and standard error, unbuffered per line so JSON Lines stream.
enum Console {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// One JSON object on one line of standard output.
    static func jsonLine<T: Encodable>(_ value: T) {
        do {
            let data = try encoder.encode(value)
            out(String(decoding: data, as: UTF8.self))
        } catch {
            err("seer: cannot encode result: \(error)")
        }
    }

    static func out(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func err(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
