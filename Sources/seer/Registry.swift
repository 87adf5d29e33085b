import ArgumentParser
import Foundation
import Seer
import SeerCodegen

struct Registry: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "registry",
        abstract: "Import registry files; write the demo codes, or any text as a QR Code.",
        subcommands: [RegistryImport.self, RegistryDemo.self, RegistryQR.self, RegistryDataMatrix.self])
}

struct RegistryImport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import brands and keys, products, serials, users and chargers from JSON files, all or nothing.",
        discussion: """
            Each file is an object with any of the arrays "brands", "products", "serials", "users", "chargers" \
            (see Examples/registry/). Records may refer to records in other files of the same import.
            Import is strict: an unknown key anywhere, a value of the wrong type, a record that appears twice \
            (same brand id, key id, GTIN, GTIN and serial, user id or charger id) or a bad value (a plate that \
            cannot be one, a country that is no ISO 3166 code, …) refuses the whole import. The error names \
            the file, the record and the field, and nothing is imported.
            JSON: {"files","brands","keys","products","serials","users","chargers"}; refused: \
            {"file","error":{"code":"importRefused","message"}}.
            Exit codes: 0 imported, 1 refused, 64 usage error.
            """)

    @Argument(help: "Registry JSON files, directories (every .json file below them, recursively), or - for standard input.")
    var files: [String]

    @OptionGroup var output: FormatOption
    @OptionGroup var store: StoreOptions

    func validate() throws {
        if files.isEmpty { throw ValidationError("Give at least one registry file.") }
    }

    func run() throws {
        let format = output.format
        var contents: [(name: String, data: Data)] = []
        for file in Inputs.expand(files, keeping: { $0.lowercased().hasSuffix(".json") }) {
            if file == "-" {
                do {
                    contents.append(("-", Data(try StandardInput.shared.bytes())))
                } catch {
                    Failures.exit(FileFailure(file: "-", code: "unreadable", message: "cannot read standard input"), file: "-", format: format)
                }
                continue
            }
            guard let data = FileManager.default.contents(atPath: file) else {
                Failures.exit(FileFailure(file: file, code: "unreadable", message: "cannot read the file"), file: file, format: format)
            }
            contents.append((file, data))
        }
        let engine = EngineFactory.make(db: store.db)
        let database = engine.storeOrExit(format: format)
        do {
            let summary = try database.importRegistry(contents)
            switch format {
            case .json: Console.jsonLine(summary)
            case .text:
                Console.out(
                    "imported \(summary.brands) brands, \(summary.keys) keys, \(summary.products) products, "
                        + "\(summary.serials) serials, \(summary.users) users, \(summary.chargers) chargers from \(summary.files) files into \(storeName(store.db))")
            }
        } catch {
            Failures.exit(error, file: "", format: format)
        }
    }
}

struct RegistryDemo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Write the demo product and charger codes as PNG QR Codes, with codes.json listing what each should get.",
        discussion: """
            The codes are signed with demo keys derived from public strings, matching the registry in \
            Examples/registry/ (written again with --registry-dir). Demo keys are for the demo only.
            """)

    @Argument(help: "Directory for the PNG files.")
    var directory: String

    @Option(name: .long, help: "Also write the demo registry JSON files into this directory.")
    var registryDir: String?

    @Option(name: .long, help: "Pixels per QR module.")
    var moduleSize: Int = 6

    func validate() throws {
        if !(1...40).contains(moduleSize) { throw ValidationError("--module-size runs from 1 to 40.") }
    }

    func run() throws {
        let codes = try VerifyDemo.write(to: directory, moduleSize: moduleSize)
        for code in codes { Console.out("\(directory)/\(code.file)\t\(code.expected)\t\(code.note)") }
        if let registryDir {
            for path in try VerifyDemo.writeRegistry(to: registryDir) { Console.err("seer: wrote \(path)") }
        }
    }
}
