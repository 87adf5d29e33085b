import Foundation
import GRDB
import SeerVerify

/// How a scan was made.
public enum ScanMode: String, Sendable, Codable, CaseIterable {
    /// One code, answered at once.
    case single
    /// Part of a batch: saved, duplicates within the batch flagged.
    case batch
}

/// One scan in the history, with every field. JSON keys are the field names.
public struct ScanRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    /// The table.
    public static let databaseTableName = "scan"

    /// Row id, set when saved.
    public var id: Int64?
    /// When, seconds since 1970 (UTC).
    public var time: Double
    /// The scanning device's id.
    public var device: String?
    /// `single` or `batch`.
    public var mode: ScanMode
    /// The photo the code came from, if any.
    public var sourceFile: String?
    /// The symbology, e.g. `qrcode` (`text` for a typed payload).
    public var symbology: String?
    /// The payload as read.
    public var payload: String
    /// The payload's syntax, when a product code.
    public var format: PayloadFormat?
    /// GTIN (14 digits).
    public var gtin: String?
    /// Serial.
    public var serial: String?
    /// Lot.
    public var lot: String?
    /// Expiry, YYMMDD.
    public var expiry: String?
    /// The product's name, when registered.
    public var productName: String?
    /// The product's brand.
    public var brand: String?
    /// The product's category.
    public var category: String?
    /// The verdict.
    public var verdict: Verdict
    /// The reasons, most important first.
    public var reasons: [Reason]
    /// Notes, one per line.
    public var notes: String?
    /// Latitude.
    public var latitude: Double?
    /// Longitude.
    public var longitude: Double?
    /// Country (ISO alpha-2).
    public var country: String?
    /// The batch this scan belongs to.
    public var batchID: String?

    /// A record for a verification made in `context`.
    public init(
        _ verification: Verification, context: ScanContext, mode: ScanMode, sourceFile: String? = nil,
        symbology: String? = nil, batchID: String? = nil
    ) {
        self.time = context.time
        self.device = context.device
        self.mode = mode
        self.sourceFile = sourceFile
        self.symbology = symbology
        self.payload = verification.payload
        self.format = verification.format
        self.gtin = verification.gtin
        self.serial = verification.serial
        self.lot = verification.lot
        self.expiry = verification.expiry
        self.productName = verification.product?.name
        self.brand = verification.product?.brand
        self.category = verification.product?.category
        self.verdict = verification.verdict
        self.reasons = verification.reasons
        self.notes = verification.notes.isEmpty ? nil : verification.notes.joined(separator: "\n")
        self.latitude = context.latitude
        self.longitude = context.longitude
        self.country = context.country
        self.batchID = batchID
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// A message in a plate owner's inbox.
public struct InboxMessage: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    /// The table.
    public static let databaseTableName = "inbox"
    /// Row id.
    public var id: Int64?
    /// The recipient's opaque id.
    public var recipient: String
    /// The text.
    public var text: String
    /// The preset's id, when a preset.
    public var preset: String?
    /// When, seconds since 1970.
    public var sentAt: Double

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// Which scans a history query returns.
public enum ResultFilter: String, Sendable, Codable, CaseIterable {
    /// Every scan.
    case all
    /// Scans verified authentic.
    case success
    /// Every other verdict: counterfeit, suspicious, unknown.
    case failed
}

/// A period back from now.
public enum Period: String, Sendable, Codable, CaseIterable {
    /// The last 24 hours.
    case day
    /// The last 7 days.
    case week
    /// The last 30 days.
    case month
    /// Everything.
    case all

    /// Seconds covered, `nil` for all.
    public var seconds: Double? {
        switch self {
        case .day: 86_400
        case .week: 7 * 86_400
        case .month: 30 * 86_400
        case .all: nil
        }
    }
}

/// A history query: filters, full-text search and a page.
public struct HistoryQuery: Sendable, Equatable {
    /// By result. Default all.
    public var result: ResultFilter
    /// By product category (exact).
    public var category: String?
    /// By period; `nil` takes the `history.period` setting (default `all`).
    public var period: Period?
    /// Full-text search over every text field; each word matches as a prefix.
    public var search: String?
    /// Page size. Default 50.
    public var limit: Int
    /// Rows to skip. Default 0.
    public var offset: Int
    /// "Now" for the period, seconds since 1970.
    public var now: Double

    /// Creates a query.
    public init(
        result: ResultFilter = .all, category: String? = nil, period: Period? = nil, search: String? = nil, limit: Int = 50,
        offset: Int = 0, now: Double = Date().timeIntervalSince1970
    ) {
        self.result = result
        self.category = category
        self.period = period
        self.search = search
        self.limit = limit
        self.offset = offset
        self.now = now
    }
}

/// One page of history, newest first.
public struct HistoryPage: Sendable, Codable, Equatable {
    /// The scans on this page.
    public var scans: [ScanRecord]
    /// Whether more follow.
    public var hasMore: Bool
    /// The offset of the next page, when there is one.
    public var nextOffset: Int?
}

/// Totals for a set of scans.
public struct Statistics: Sendable, Codable, Equatable {
    /// One count.
    public struct Count: Sendable, Codable, Equatable {
        /// What is counted (a verdict, a category, a day `YYYY-MM-DD`).
        public var key: String
        /// How many.
        public var count: Int

        /// Creates a count.
        public init(key: String, count: Int) {
            self.key = key
            self.count = count
        }
    }

    /// All scans.
    public var total: Int
    /// By verdict.
    public var byVerdict: [Count]
    /// By category (`uncategorised` for codes without a registered product).
    public var byCategory: [Count]
    /// By UTC day, oldest first.
    public var perDay: [Count]
}

/// What an import added.
public struct ImportSummary: Sendable, Codable, Equatable {
    /// Files read.
    public var files: Int
    /// Brands.
    public var brands: Int
    /// Keys.
    public var keys: Int
    /// Products.
    public var products: Int
    /// Serials.
    public var serials: Int
    /// Users.
    public var users: Int
    /// Chargers.
    public var chargers: Int

    /// Creates a summary.
    public init(files: Int, brands: Int, keys: Int, products: Int, serials: Int, users: Int, chargers: Int) {
        self.files = files
        self.brands = brands
        self.keys = keys
        self.products = products
        self.serials = serials
        self.users = users
        self.chargers = chargers
    }
}

/// An import that was refused: which file, record and field, and why. Nothing was imported.
public struct ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file.
    public var file: String
    /// The record, e.g. `products[3]`, or `nil` for the file as a whole.
    public var record: String?
    /// The field, e.g. `gtin`.
    public var field: String?
    /// What is wrong.
    public var message: String

    /// `file: record.field: message`.
    public var description: String {
        var location = file
        if let record { location += ": " + record + (field.map { "." + $0 } ?? "") }
        return "\(location): \(message) (nothing was imported)"
    }
}

/// A store failure that is not an import error.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable code.
    public var code: String
    /// What went wrong.
    public var message: String
    /// `code: message`.
    public var description: String { "\(code): \(message)" }

    /// Creates an error.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}
