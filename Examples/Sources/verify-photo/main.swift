// Reads a photo, verifies the product codes in it against a registry, and prints each verdict.
//
//     verify-photo [--db FILE] [--registry FILE]… PHOTO…
//
// With --registry the registry files are imported first (Examples/registry/ has the demo registry
// that matches TestImages/products/). Exit status: 0 every photo was read, 1 otherwise.
import Foundation
import Seer

var arguments = Array(CommandLine.arguments.dropFirst())
var database = NSTemporaryDirectory() + "/seer-example-\(getpid()).sqlite"
var registry: [String] = []
var photos: [String] = []
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "--db" where !arguments.isEmpty: database = arguments.removeFirst()
    case "--registry" where !arguments.isEmpty: registry.append(arguments.removeFirst())
    default: photos.append(argument)
    }
}
guard !photos.isEmpty else {
    FileHandle.standardError.write(Data("usage: verify-photo [--db FILE] [--registry FILE]… PHOTO…\n".utf8))
    exit(64)
}

// One engine, configured once: here only where its store is.
var configuration = Engine.Configuration()
configuration.store = .sqlite(path: database)
let engine = Engine(configuration: configuration)

var status: Int32 = 0
do {
    let store = try engine.store()
    if !registry.isEmpty {
        let files = try registry.map { (name: $0, data: try Data(contentsOf: URL(fileURLWithPath: $0))) }
        let summary = try store.importRegistry(files)
        print("imported \(summary.products) products and \(summary.serials) serials")
    }
    for photo in photos {
        do {
            // Read the photo once; every product code in it is verified and saved in the history.
            let report = try engine.scan(contentsOf: photo, ScanRequest(context: ScanContext(device: "example")), store: store)
            if report.symbols.isEmpty { print("\(photo): no code") }
            for symbol in report.symbols {
                if let verification = symbol.verification {
                    let reasons = verification.reasons.map(\.rawValue).joined(separator: ", ")
                    let product = verification.product.map { " — \($0.name)" } ?? ""
                    print("\(photo): \(verification.verdict.rawValue.uppercased()) (\(reasons))\(product)")
                } else if let charger = symbol.charger {
                    print("\(photo): charger \(charger.chargerID): \(charger.message)")
                }
            }
        } catch {
            // Every failure is a typed error that says what went wrong with which input.
            print("\(photo): \(FileFailure(file: photo, error: error).error.message)")
            status = 1
        }
    }
} catch {
    print("verify-photo: \(error)")
    status = 1
}
exit(status)
