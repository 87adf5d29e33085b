import ArgumentParser
import Foundation
import SeerCodegen
import SeerImage

/// `seer registry qr`: any text as a PNG QR Code, to try a payload of one's own (in the web app, say).
struct RegistryQR: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "qr",
        abstract: "Write a text as a PNG QR Code (UTF-8), to try payloads of your own.")

    @Argument(help: "The text to encode.")
    var text: String

    @Argument(help: "The PNG file to write.")
    var output: String

    @Option(name: .long, help: "Pixels per QR module.")
    var moduleSize: Int = 6

    func validate() throws {
        if !(1...40).contains(moduleSize) { throw ValidationError("--module-size runs from 1 to 40.") }
        if text.isEmpty { throw ValidationError("The text is empty.") }
    }

    func run() throws {
        do {
            let symbol = try QREncoder.encode(text)
            try PNGWriter.write(symbol.image(moduleSize: moduleSize), to: output)
        } catch {
            Failures.exit(error, file: output, format: .text)
        }
    }
}
