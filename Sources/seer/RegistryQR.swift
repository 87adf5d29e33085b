import ArgumentParser
import Foundation
import SeerCodegen
import SeerImage
import SeerQR

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

/// `seer registry datamatrix`: a text, or a GS1 element string, as a PNG Data Matrix (ECC 200).
struct RegistryDataMatrix: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "datamatrix",
        abstract: "Write a text as a PNG Data Matrix; with --gs1, an element string written (AI)value(AI)value….")

    @Argument(help: "The text to encode; with --gs1, AIs in parentheses, e.g. (01)09506000134352(17)281231(10)L24.")
    var text: String

    @Argument(help: "The PNG file to write.")
    var output: String

    @Flag(name: .long, help: "Encode a GS1 element string: FNC1 first, and between fields as GS1 requires.")
    var gs1 = false

    @Option(name: .long, help: "Pixels per module.")
    var moduleSize: Int = 6

    func validate() throws {
        if !(1...40).contains(moduleSize) { throw ValidationError("--module-size runs from 1 to 40.") }
        if text.isEmpty { throw ValidationError("The text is empty.") }
        if gs1, GS1Syntax.elementString(fromBracketed: text) == nil {
            throw ValidationError("--gs1 takes (AI)value pairs with a 2–4 digit AI each, e.g. (01)09506000134352(10)L24.")
        }
    }

    func run() throws {
        do {
            let bytes = gs1 ? GS1Syntax.elementString(fromBracketed: text)! : Array(text.utf8)
            let symbol = try DataMatrixEncoder.encode(bytes, gs1: gs1)
            try PNGWriter.write(symbol.image(moduleSize: moduleSize), to: output)
        } catch {
            Failures.exit(error, file: output, format: .text)
        }
    }
}
