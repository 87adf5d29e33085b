import ArgumentParser
import Foundation
import Logging
import Seer
import SeerCodegen
import SeerServer
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the HTTP API (see Sources/SeerServer/openapi.json) over the store.",
        discussion: """
            Routes under /v1 need 'Authorization: Bearer <key>' (seer apikey create). --demo starts on a fresh \
            temporary database holding the demo registry and prints one key per role (device, user, admin) on \
            standard output, then a link to the web app (/app/) that signs in with them. Logs (one line per request; never a key, a body or an email) go to standard error \
            (SEER_LOG=warning quietens them). SIGINT or SIGTERM stops it gracefully: requests in flight finish.
            """)

    @Option(name: .long, help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(name: .long, help: "The port (0 picks a free one).")
    var port = 8080

    @OptionGroup var store: StoreOptions

    @Option(name: .long, help: "Threads reading photos (default: the number of cores).")
    var workers = ProcessInfo.processInfo.activeProcessorCount

    @Option(name: .long, help: "Photos that may wait for a worker before requests are answered 503 (default: 16 per worker).")
    var queue: Int?

    @Option(name: .long, help: "Photos that may wait for room in the queue, their bodies read, each for at most a second, before requests are answered 503 at once (default: 128 per worker).")
    var waiting: Int?

    @Option(name: .long, help: "The largest request body in bytes (20 MiB by default).")
    var maxBody = 20 << 20

    @Option(name: .long, help: "The largest photo in megapixels.")
    var maxMegapixels = 100.0

    @Option(name: .long, help: "Seconds one request may take, waiting for a worker included.")
    var timeout = 30.0

    @Flag(name: .long, help: "Start on a fresh temporary database with the demo registry; print one API key per role and a link to the web app.")
    var demo = false

    @Option(name: .long, help: ArgumentHelp("Serve HTTPS with this certificate chain (PEM; with --tls-key). Phones allow the web app's camera only over HTTPS.", valueName: "file"))
    var tlsCert: String?

    @Option(name: .long, help: ArgumentHelp("The private key (PEM) of --tls-cert.", valueName: "file"))
    var tlsKey: String?

    func validate() throws {
        if demo && store.db != nil { throw ValidationError("--demo makes its own temporary database; leave out --db.") }
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together.") }
        if !(0...65535).contains(port) { throw ValidationError("--port runs from 0 to 65535.") }
        if workers < 1 { throw ValidationError("--workers must be at least 1.") }
        if let queue, queue < 0 { throw ValidationError("--queue cannot be negative.") }
        if let waiting, waiting < 0 { throw ValidationError("--waiting cannot be negative.") }
        if maxBody < 1 { throw ValidationError("--max-body must be positive.") }
        if !(maxMegapixels > 0) { throw ValidationError("--max-megapixels must be positive.") }
        if !(timeout > 0) { throw ValidationError("--timeout must be positive.") }
    }

    func run() throws {
        var logger = Logger(label: "seer.serve")
        logger.logLevel = getenv("SEER_LOG").flatMap { Logger.Level(rawValue: String(cString: $0)) } ?? .info
        // --db, else SEER_DB, else the default file: the keys are in the same store.
        var db = store.db
        var demoDirectory: String?
        if demo {
            let directory = NSTemporaryDirectory() + "seer-demo-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            demoDirectory = directory
            db = directory + "/seer.sqlite"
        }
        defer { if let demoDirectory { try? FileManager.default.removeItem(atPath: demoDirectory) } }

        let engine = EngineFactory.make(db: db) { configuration in
            configuration.decode.pixelLimit = Int(maxMegapixels * 1_000_000)
            configuration.logger = logger
        }
        let keys: APIKeyStore
        var demoKeys: [(role: String, key: String)] = []
        do {
            keys = try engine.apiKeys()
            if demo { demoKeys = try Self.prepareDemo(engine: engine, keys: keys) }
        } catch {
            Failures.exit(error, file: "", format: .text)
        }

        var configuration = ServiceConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.workers = workers
        configuration.queueLimit = queue
        configuration.admissionLimit = waiting
        configuration.maxBodyBytes = maxBody
        configuration.timeBudget = .milliseconds(Int(timeout * 1000))
        let service = SeerService(engine: engine, keys: keys, configuration: configuration, logger: logger)
        let (log, database, chosen, host, port, appKeys) = (logger, storeName(db), configuration, host, port, demoKeys)
        let tlsFiles = tlsCert.map { TLSFiles(certificate: $0, key: tlsKey ?? "") }
        let scheme = tlsFiles == nil ? "http" : "https"
        let onRunning: SeerService.ServerRunning = { channel in
            let address = channel.localAddress.map { "\($0.ipAddress ?? host):\($0.port ?? port)" } ?? "\(host):\(port)"
            // The web app, signed in with the demo keys: they ride in the fragment, which a browser
            // never sends, so they reach no request line and no log.
            if !appKeys.isEmpty {
                let bound = channel.localAddress?.ipAddress ?? host
                let links = WebApp.links(host: bound, port: channel.localAddress?.port ?? port, keys: appKeys, secure: scheme == "https")
                for link in links { Console.out("app \(link)") }
            }
            log.info(
                "listening",
                metadata: [
                    "address": "\(address)", "db": "\(database)", "workers": "\(chosen.workers)", "queue": "\(chosen.effectiveQueueLimit)",
                    "waiting": "\(chosen.effectiveAdmissionLimit)", "scheme": "\(scheme)",
                ])
            Console.err("seer: listening on \(scheme)://\(address)")
        }
        // The command line is synchronous: the service runs in a task and this thread waits for it.
        let done = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error)?>(nil)
        Task.detached {
            do {
                try await service.run(tls: tlsFiles, onServerRunning: onRunning)
            } catch {
                failure.withLock { $0 = error }
            }
            done.signal()
        }
        done.wait()
        service.shutdown()
        logger.info("stopped")
        if let error = failure.withLock({ $0 }) {
            Console.err("seer: serve: \(error)")
            throw ExitCode(1)
        }
    }

    /// The demo registry and one key per role; the user key acts for the demo owner of `AB12 CDE`.
    /// - Returns: the device and user keys, for the web app's link.
    static func prepareDemo(engine: Engine, keys: APIKeyStore) throws -> [(role: String, key: String)] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let files = try VerifyDemo.registryFiles().map { (name: $0.name, data: try encoder.encode($0.file)) }
        let summary = try engine.store().importRegistry(files)
        Console.err(
            "seer: demo registry: \(summary.brands) brands, \(summary.products) products, \(summary.serials) serials, "
                + "\(summary.users) plate owners, \(summary.chargers) chargers")
        let device = try keys.create(role: .device, name: "demo-phone")
        let user = try keys.create(role: .user, name: "demo-user", recipient: "rcp-7f3a9c")
        let admin = try keys.create(role: .admin, name: "demo-admin")
        Console.out("device \(device.key)")
        Console.out("user \(user.key)")
        Console.out("admin \(admin.key)")
        return [("device", device.key), ("user", user.key)]
    }
}

extension Role: ExpressibleByArgument {}

extension Engine {
    /// The API keys, kept in the engine's store (the SQLite file or the PostgreSQL database).
    func apiKeys() throws -> APIKeyStore {
        guard let storage = try store() as? any APIKeyStorage else {
            throw StoreError(code: "unsupported", message: "This store keeps no API keys.")
        }
        return APIKeyStore(storage: storage)
    }
}

struct APIKeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apikey", abstract: "Make, list and revoke the HTTP API's keys (stored hashed).",
        subcommands: [APIKeyCreate.self, APIKeyList.self, APIKeyRevoke.self])
}

struct APIKeyCreate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create", abstract: "Make a key and print it (only the key, once: it is stored hashed).",
        discussion: """
            Roles: device (scans, verify, its own device's history; --name is the device), user (plates, messages, \
            its own inbox; --recipient binds it to a registered owner, or POST /v1/users does), admin (registry, keys).
            """)

    @Option(name: .long, help: "device, user or admin.")
    var role: Role

    @Option(name: .long, help: "A name for people; for a device key, the device its scans carry.")
    var name: String?

    @Option(name: .long, help: "For a user key: the plate owner (recipient id, rcp-…) it acts for.")
    var recipient: String?

    @OptionGroup var store: StoreOptions

    func validate() throws {
        if recipient != nil && role != .user { throw ValidationError("--recipient is for user keys.") }
        if let name, name.isEmpty || name.count > 100 { throw ValidationError("--name has 1 to 100 characters.") }
    }

    func run() throws {
        do {
            let keys = try EngineFactory.make(db: store.db).apiKeys()
            Console.out(try keys.create(role: role, name: name, recipient: recipient).key)
        } catch {
            Failures.exit(error, file: "", format: .text)
        }
    }
}

struct APIKeyList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the keys: id, role, name, recipient, made and revoked (never the keys).")

    @OptionGroup var output: FormatOption
    @OptionGroup var store: StoreOptions

    func run() throws {
        do {
            let keys = try EngineFactory.make(db: store.db).apiKeys()
            let formatter = ISO8601DateFormatter()
            for key in try keys.list() {
                switch output.format {
                case .json: Console.jsonLine(key)
                case .text:
                    var line = "\(key.id) \(key.role.rawValue)"
                    if let name = key.name { line += " name=\(name)" }
                    if let recipient = key.recipient { line += " recipient=\(recipient)" }
                    line += " created=\(formatter.string(from: Date(timeIntervalSince1970: key.createdAt)))"
                    if let revoked = key.revokedAt { line += " revoked=\(formatter.string(from: Date(timeIntervalSince1970: revoked)))" }
                    Console.out(line)
                }
            }
        } catch {
            Failures.exit(error, file: "", format: output.format)
        }
    }
}

struct APIKeyRevoke: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Revoke a key by its id (seer apikey list).")

    @Argument(help: "The key's id.")
    var id: String

    @OptionGroup var store: StoreOptions

    func run() throws {
        do {
            let keys = try EngineFactory.make(db: store.db).apiKeys()
            let info = try keys.revoke(id: id)
            Console.err("seer: revoked \(info.id) (\(info.role.rawValue))")
        } catch {
            Failures.exit(error, file: "", format: .text)
        }
    }
}
