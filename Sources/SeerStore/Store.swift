import Foundation
import SeerVerify

/// One payload to verify, with where it came from.
public struct ScanInput: Sendable, Equatable {
    /// The decoded text.
    public var payload: String
    /// The photo it came from.
    public var sourceFile: String?
    /// The symbology, e.g. `qrcode`.
    public var symbology: String?

    /// Creates an input.
    public init(payload: String, sourceFile: String? = nil, symbology: String? = nil) {
        self.payload = payload
        self.sourceFile = sourceFile
        self.symbology = symbology
    }
}

/// The store Seer keeps registry and history in. ``SQLiteStore`` is the embedded implementation; a
/// server database can implement the same protocol.
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

    /// Saves scans as they are.
    func record(_ scans: [ScanRecord]) throws

    /// A page of history.
    func history(_ query: HistoryQuery) throws -> HistoryPage

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

    /// Resolves a plate to a recipient.
    func resolvePlate(_ text: String, region: String?, candidates: [String], resolver: PlateResolver) throws -> PlateResolution

    /// Stores a message in a recipient's inbox.
    func deliver(text: String, preset: String?, to recipient: String, at time: Double) throws -> DeliveryReceipt

    /// A recipient's inbox, newest first.
    func inbox(recipient: String) throws -> [InboxMessage]

    /// A setting's value.
    func setting(_ key: String) throws -> String?

    /// Sets a setting.
    func setSetting(_ key: String, _ value: String) throws
}

/// Where the store lives unless `--db` says otherwise: `$XDG_DATA_HOME/seer/seer.sqlite`, else
/// `~/.local/share/seer/seer.sqlite`.
public func defaultStorePath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
    if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty { return xdg + "/seer/seer.sqlite" }
    let home = environment["HOME"] ?? NSHomeDirectory()
    return home + "/.local/share/seer/seer.sqlite"
}
