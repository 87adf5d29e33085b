import Foundation

/// Runs the built `seer` executable (next to the test bundle) the way a user does, and captures
/// what it prints. The one helper every test suite uses to run the command line.
public enum SeerBinary {
    /// The path of the built `seer`.
    public static let path: String = {
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return me.deletingLastPathComponent().appendingPathComponent("seer").path
    }()

    /// What one run gave.
    public struct Run: Sendable {
        /// The exit status (or the signal number + 128 when a signal ended it).
        public var status: Int32
        /// Standard output.
        public var out: String
        /// Standard error.
        public var err: String
        /// Standard output as lines, without the empty last one.
        public var lines: [String] { out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty } }
    }

    /// Runs `seer` with `arguments`, `stdin` as standard input (empty when nil), and `environment`
    /// added to (or replacing keys of) this process's environment.
    public static func run(
        _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:], directory: String? = nil
    ) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        // Read both pipes while the process runs, so a large output cannot block it.
        let group = DispatchGroup()
        nonisolated(unsafe) var o = Data(), e = Data()
        group.enter()
        DispatchQueue.global().async {
            o = out.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        group.enter()
        DispatchQueue.global().async {
            e = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        group.wait()
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return Run(status: status, out: String(decoding: o, as: UTF8.self), err: String(decoding: e, as: UTF8.self))
    }
}

/// A fresh temporary directory, removed when the value goes away.
public final class TemporaryDirectory: Sendable {
    /// Its path.
    public let path: String

    /// Creates the directory.
    public init(_ prefix: String = "seer-test") throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A path inside it.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `text` to a file inside it and returns the path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String {
        let file = file(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Where the repository's files are, from this source file's location.
public enum Repository {
    /// The repository's root folder.
    public static let root: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// A path below the root.
    public static func path(_ relative: String) -> String { root + "/" + relative }
}
