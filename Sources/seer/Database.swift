import ArgumentParser
import Foundation
import Seer
import SeerPostgres

/// `seer db`: the store's schema, and moving a history from a SQLite file to PostgreSQL.
struct DatabaseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract: "Migrate the store's schema; copy a SQLite history into PostgreSQL.",
        subcommands: [DatabaseMigrate.self, DatabaseCopy.self])
}

struct DatabaseMigrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Bring the store (a SQLite file or a PostgreSQL database) to the current schema.",
        discussion: """
            Prints the schema steps applied, in order. Every command migrates the store it opens; this does \
            only that, e.g. before replicas start. Several processes may migrate one PostgreSQL database at \
            once: they take turns. JSON: {"migrations":[…],"store":…}.
            Exit codes: 0 done, 1 the store failed, 64 usage error.
            """)

    @OptionGroup var store: StoreOptions
    @OptionGroup var output: FormatOption

    struct Report: Codable {
        var store: String
        var migrations: [String]
    }

    func run() throws {
        let engine = EngineFactory.make(db: store.db)
        let format = output.format
        do {
            let opened = try engine.store()
            let report: Report
            switch opened {
            case let postgres as PostgresStore: report = Report(store: postgres.location.description, migrations: try postgres.appliedMigrations())
            case let sqlite as SQLiteStore: report = Report(store: sqlite.path, migrations: try sqlite.appliedMigrations())
            default: report = Report(store: "", migrations: [])
            }
            switch format {
            case .json: Console.jsonLine(report)
            case .text: Console.out("\(report.store): \(report.migrations.joined(separator: ", "))")
            }
        } catch {
            Failures.exit(error, file: "", format: format)
        }
    }
}

struct DatabaseCopy: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy a SQLite store (registry, history, reports, inbox, settings, API keys) into an empty PostgreSQL database.",
        discussion: """
            All or nothing, in one transaction; ids are kept, so reports and messages still point at their \
            rows. Every scan is checked as it is read: a damaged row stops the copy and is named. The \
            target is migrated first and must hold no data. JSON: {"tables":[{"table","rows"}]}.
            Exit codes: 0 copied, 1 refused or failed (nothing was copied), 64 usage error.
            """)

    @Option(name: .long, help: "The SQLite file to copy from.")
    var from: String

    @Option(name: .long, help: "The PostgreSQL database to copy into: postgres://user@host:port/database.")
    var to: String

    @OptionGroup var output: FormatOption

    func validate() throws {
        if PostgresLocation.isURL(from) { throw ValidationError("--from is a SQLite file; '\(from)' is a PostgreSQL URL.") }
        if !PostgresLocation.isURL(to) { throw ValidationError("--to is a PostgreSQL URL (postgres://user@host:port/database).") }
        if !FileManager.default.fileExists(atPath: from) { throw ValidationError("--from: there is no file \(from).") }
    }

    func run() throws {
        let format = output.format
        do {
            let source = try SQLiteStore(path: from)
            let target = try PostgresStore(url: to)
            let summary = try target.copy(from: source)
            switch format {
            case .json: Console.jsonLine(summary)
            case .text:
                for table in summary.tables { Console.out("\(table.table) \(table.rows)") }
                Console.err("copied \(from) into \(target.location)")
            }
        } catch {
            Failures.exit(error, file: "", format: format)
        }
    }
}
