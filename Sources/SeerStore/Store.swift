import Foundation
import Logging
import SeerVerify

/// One payload to verify, with where it came from.
public struct ScanInput: Sendable, Equatable {
    /// The decoded text.
    public var payload: String
    /// The photo it came from.
    public var sourceFile: String?
    /// The symbology, e.g. `qrcode`.
    public var symbology: String?
    /// The line of the payload file it came from (1-based), when it came from one.
    public var line: Int?

    /// Creates an input.
    public init(payload: String, sourceFile: String? = nil, symbology: String? = nil, line: Int? = nil) {
        self.payload = payload
        self.sourceFile = sourceFile
        self.symbology = symbology
        self.line = line
    }
}

/// The store Seer keeps registry and history in. ``SQLiteStore`` is the embedded implementation;
/// `PostgresStore` (module `SeerPostgres`) the shared one, for several processes or machines on one database.
///
/// Every method reports failure as a ``StoreError`` (or an ``ImportError`` for a refused import),
/// whatever the database holds: a damaged row is an error naming the row, never a crash.
public protocol SeerStore: Sendable {
    /// Imports registry files all-or-nothing; `files` are (name, contents).
    func importRegistry(_ files: [(name: String, data: Data)]) throws -> ImportSummary

    /// Verifies payloads against the registry and history and, when `save` is set, records each one.
    ///
    /// Payloads with the same `sourceFile` count as one photo (duplicates flagged `duplicateInPhoto`);
    /// in batch mode every repeat within the call is flagged `duplicateInBatch`. A failure of one
    /// payload never stops the rest.
    func verify(
        _ inputs: [ScanInput], context: ScanContext, mode: ScanMode, verifier: Verifier, save: Bool
    ) throws -> [Verification]

    /// Starts a batch run, or with `resume` continues the newest unfinished run with the same
    /// `key` (a digest of the run's inputs): its id, how many inputs it already saved, and the items
    /// it saw (so repeats across the stop are still `duplicateInBatch`).
    func beginBatch(key: String, resume: Bool, at time: Double) throws -> BatchProgress

    /// Verifies and saves the next inputs of a batch run in one transaction, which also records
    /// how far the run got: after a stop at any point, every result returned was saved, and a
    /// resumed run starts after the last saved input.
    func verify(_ inputs: [ScanInput], context: ScanContext, verifier: Verifier, progress: inout BatchProgress) throws -> [Verification]

    /// Marks a batch run finished (it can no longer be resumed).
    func finishBatch(_ progress: BatchProgress) throws

    /// Saves scans as they are.
    func record(_ scans: [ScanRecord]) throws

    /// A page of history.
    func history(_ query: HistoryQuery) throws -> HistoryPage

    /// One scan with every field and the counterfeit reports made on it, or nil when there is no
    /// scan with this id.
    func scan(id: Int64) throws -> ScanDetails?

    /// Records a counterfeit report on a scan (a scan may be reported more than once).
    /// - Throws: ``StoreError`` `notFound` when there is no scan with this id.
    func report(scanID: Int64, reason: String?, at time: Double) throws -> CounterfeitReport

    /// Registers a plate owner (already validated); `owner.id` must be new.
    /// - Throws: ``StoreError`` `duplicate` when the id is taken.
    func addUser(_ owner: PlateOwner) throws

    /// Whether a recipient id is taken.
    func userExists(id: String) throws -> Bool

    /// Search terms starting with `prefix`, most frequent first (live suggestions).
    func suggestions(prefix: String, limit: Int) throws -> [String]

    /// Remembers a search (deduplicated; most recent first).
    func rememberSearch(_ text: String) throws

    /// Recent searches, most recent first.
    func recentSearches(limit: Int) throws -> [String]

    /// Totals by verdict, category and day for the scans a query selects (its page is ignored).
    func statistics(_ query: HistoryQuery) throws -> Statistics

    /// A charger by id.
    func charger(id: String) throws -> Charger?

    /// Resolves a plate to a recipient (see ``PlateResolver/resolve(_:country:region:candidates:in:)``).
    func resolvePlate(
        _ text: String, country: Country?, region: PlateRegion?, candidates: [String], resolver: PlateResolver
    ) throws -> PlateResolution

    /// Stores a message in a recipient's inbox.
    func deliver(text: String, preset: String?, to recipient: String, at time: Double) throws -> DeliveryReceipt

    /// A recipient's inbox, newest first.
    func inbox(recipient: String) throws -> [InboxMessage]

    /// A setting's value.
    func setting(_ key: String) throws -> String?

    /// Sets a setting.
    func setSetting(_ key: String, _ value: String) throws
}

/// How far a batch run got, and what it has seen. Made by ``SeerStore/beginBatch(key:resume:at:)``.
public struct BatchProgress: Sendable {
    /// The run's id: the `batchID` of its scans.
    public let id: String
    /// The digest of the run's inputs.
    public let key: String
    /// Inputs verified and saved so far (on resume: the inputs to skip).
    public internal(set) var processed: Int
    /// Whether this continues a run that was stopped.
    public let resumed: Bool
    var batch = DuplicateTracker(reason: .duplicateInBatch)
    var photos: [String: DuplicateTracker] = [:]

    init(id: String, key: String, processed: Int, resumed: Bool) {
        self.id = id
        self.key = key
        self.processed = processed
        self.resumed = resumed
    }
}

/// Where the store lives unless `--db` says otherwise: `$XDG_DATA_HOME/seer/seer.sqlite`, else
/// `~/.local/share/seer/seer.sqlite`.
public func defaultStorePath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
    if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty { return xdg + "/seer/seer.sqlite" }
    let home = environment["HOME"] ?? NSHomeDirectory()
    return home + "/.local/share/seer/seer.sqlite"
}

/// Whether `text` is a PostgreSQL URL (`postgres://…` or `postgresql://…`) rather than a SQLite
/// file's path.
public func isPostgresURL(_ text: String) -> Bool {
    let lower = text.lowercased()
    return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
}

/// Opens a store of a kind this module does not link, when it is first needed: a PostgreSQL
/// database (`StoreOpener.postgres(url:)`, module `SeerPostgres`), or any other ``SeerStore``.
public struct StoreOpener: Sendable, CustomStringConvertible {
    /// The store, for messages (never a password).
    public let description: String
    let open: @Sendable (Logger) throws -> any SeerStore

    /// An opener; `open` connects (and migrates) with the engine's logger.
    public init(_ description: String, open: @escaping @Sendable (Logger) throws -> any SeerStore) {
        self.description = description
        self.open = open
    }

    /// Opens the store.
    public func callAsFunction(logger: Logger) throws -> any SeerStore {
        try open(logger)
    }
}

/// A kind of store named by a URL, as `--db` and `SEER_DB` take one: which texts it takes, and the
/// opener for one (`StoreScheme.postgres`, module `SeerPostgres`).
public struct StoreScheme: Sendable {
    /// Whether the text names a store of this kind.
    public let accepts: @Sendable (String) -> Bool
    /// The opener of the store a text names.
    public let opener: @Sendable (String) -> StoreOpener

    /// A scheme.
    public init(accepts: @escaping @Sendable (String) -> Bool, opener: @escaping @Sendable (String) -> StoreOpener) {
        self.accepts = accepts
        self.opener = opener
    }
}
