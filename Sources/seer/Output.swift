import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
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

    static func out(_ line: String) { write(line + "\n", to: 1) }

    static func err(_ line: String) { write(line + "\n", to: 2) }

    /// Writes all of `text` to a file descriptor, retrying short writes.
    static func write(_ text: String, to fd: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var done = 0
            while done < bytes.count {
                let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    return
                }
                done += n
            }
        }
    }
}
