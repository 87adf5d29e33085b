import Foundation
import SeerVerify

/// How a scan was made.
public enum ScanMode: String, Sendable, Codable, CaseIterable {
    /// One code, answered at once.
    case single
    /// Part of a batch: saved, duplicates within the batch flagged.
    case batch
}

/// One scan in the history, with every field. JSON keys are the field names.
public struct ScanRecord: Codable, Sendable, Equatable {
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

    /// The values of ``Schema/scanColumns``, in order.
    var values: [SQLValue] {
        [
            id.sqlValue, .real(time), device.sqlValue, .text(mode.rawValue), sourceFile.sqlValue, symbology.sqlValue, .text(payload),
            format?.rawValue.sqlValue ?? .null, gtin.sqlValue, serial.sqlValue, lot.sqlValue, expiry.sqlValue, productName.sqlValue,
            brand.sqlValue, category.sqlValue, .text(verdict.rawValue), .text(reasonsJSON), notes.sqlValue, latitude.sqlValue,
            longitude.sqlValue, country.sqlValue, batchID.sqlValue,
        ]
    }

    /// The reasons as the `reasons` column holds them: a JSON list of their names. (A reason's name is
    /// a plain identifier: nothing in it needs escaping.)
    var reasonsJSON: String {
        "[" + reasons.map { "\"" + $0.rawValue + "\"" }.joined(separator: ",") + "]"
    }

    /// Reads a saved scan, checking every column: a row that holds what no scan can (a verdict,
    /// mode, format or reason Seer does not know, a time that is no number, a missing payload) is a
    /// ``StoreError`` `damagedRow` naming the scan and the column, never a crash.
    public init(row: SQLRow) throws {
        let id = row.get("id", as: Int64.self)
        func damaged(_ column: String, _ what: String) -> StoreError {
            StoreError(
                code: "damagedRow",
                message: "Scan #\(id.map(String.init) ?? "?") in the database is damaged: its \(column) \(what).")
        }
        func text(_ column: String) throws -> String? {
            switch row[column] {
            case .null: return nil
            case .text(let s): return s
            default: throw damaged(column, "is not text")
            }
        }
        func number(_ column: String) throws -> Double? {
            switch row[column] {
            case .null: return nil
            case .real(let d) where d.isFinite: return d
            case .integer(let i): return Double(i)
            default: throw damaged(column, "is not a number")
            }
        }
        func required<T>(_ value: T?, _ column: String) throws -> T {
            guard let value else { throw damaged(column, "is missing") }
            return value
        }
        func known<T: RawRepresentable<String>>(_ type: T.Type, _ column: String) throws -> T? {
            guard let raw = try text(column) else { return nil }
            guard let value = T(rawValue: raw) else { throw damaged(column, "'\(raw.prefix(40))' is not one Seer knows") }
            return value
        }
        self.id = id
        time = try required(try number("time"), "time")
        device = try text("device")
        mode = try required(try known(ScanMode.self, "mode"), "mode")
        sourceFile = try text("sourceFile")
        symbology = try text("symbology")
        payload = try required(try text("payload"), "payload")
        format = try known(PayloadFormat.self, "format")
        gtin = try text("gtin")
        serial = try text("serial")
        lot = try text("lot")
        expiry = try text("expiry")
        productName = try text("productName")
        brand = try text("brand")
        category = try text("category")
        verdict = try required(try known(Verdict.self, "verdict"), "verdict")
        let reasonsText = try required(try text("reasons"), "reasons")
        guard let names = try? JSONDecoder().decode([String].self, from: Data(reasonsText.utf8)) else {
            throw damaged("reasons", "are not a list")
        }
        reasons = try names.map { name in
            guard let reason = Reason(rawValue: name) else { throw damaged("reasons", "hold '\(name.prefix(40))', which Seer does not know") }
            return reason
        }
        notes = try text("notes")
        latitude = try number("latitude")
        longitude = try number("longitude")
        country = try text("country")
        batchID = try text("batchID")
    }
}

/// A counterfeit report a user made on a scan ("this product is fake").
public struct CounterfeitReport: Codable, Sendable, Equatable {
    /// Row id, set when saved.
    public var id: Int64?
    /// The scan reported.
    public var scan: Int64
    /// Why, in the user's words.
    public var reason: String?
    /// When, seconds since 1970 (UTC).
    public var reportedAt: Double

    /// Creates a report.
    public init(scan: Int64, reason: String?, reportedAt: Double) {
        self.scan = scan
        self.reason = reason
        self.reportedAt = reportedAt
    }
}

/// One scan with every field and the counterfeit reports on it: what `seer history --id` prints.
/// JSON: the scan's keys (as in ``HistoryPage``) plus `reports`.
public struct ScanDetails: Codable, Sendable, Equatable {
    /// The scan.
    public var scan: ScanRecord
    /// Counterfeit reports on it, oldest first.
    public var reports: [CounterfeitReport]

    /// Creates details.
    public init(scan: ScanRecord, reports: [CounterfeitReport]) {
        self.scan = scan
        self.reports = reports
    }

    enum CodingKeys: String, CodingKey { case reports }

    /// Decodes the flat form.
    public init(from decoder: any Decoder) throws {
        scan = try ScanRecord(from: decoder)
        reports = try decoder.container(keyedBy: CodingKeys.self).decode([CounterfeitReport].self, forKey: .reports)
    }

    /// Encodes the scan's keys and `reports` side by side.
    public func encode(to encoder: any Encoder) throws {
        try scan.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(reports, forKey: .reports)
    }
}

/// A message in a plate owner's inbox.
public struct InboxMessage: Codable, Sendable, Equatable {
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
    /// By product category (case is ignored).
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
    /// Only scans made by this device (exactly); every device when nil.
    public var device: String? = nil

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
    /// Scans a user reported as counterfeit (``SeerStore/report(scanID:reason:at:)``), each counted once.
    public var reported: Int
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

    /// Creates an error.
    public init(file: String, record: String?, field: String?, message: String) {
        self.file = file
        self.record = record
        self.field = field
        self.message = message
    }

    /// `file: record.field: message`.
    public var description: String {
        var location = file
        if let record {
            location += ": " + record + (field.map { "." + $0 } ?? "")
        } else if let field {
            location += ": " + field
        }
        return "\(location): \(message) (nothing was imported)"
    }
}

/// A store failure that is not an import error: the database cannot be opened or read (`cannotOpen`,
/// `database`, `busy`), a row is damaged (`damagedRow`, naming the row), something asked for does
/// not exist (`notFound`), an id is taken (`duplicate`), or a request is out of bounds (`tooLarge`).
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
