import SeerStore
import SeerVerify

#if canImport(Glibc)
import Glibc
#endif

/// The history and the flows the apps need: a scan's details, counterfeit reports, onboarding.
extension Engine {
    /// Checks a history query against ``Limits``: the search text and the page size.
    /// - Throws: ``StoreError`` `tooLarge`.
    public func check(_ query: HistoryQuery) throws(StoreError) {
        if let search = query.search, search.count > configuration.limits.searchCharacters {
            throw StoreError(
                code: "tooLarge",
                message: "A search has at most \(configuration.limits.searchCharacters) characters; this has \(search.count).")
        }
        if query.limit > configuration.limits.pageSize {
            throw StoreError(code: "tooLarge", message: "A page has at most \(configuration.limits.pageSize) scans; \(query.limit) were asked for.")
        }
    }

    /// A page of history, newest first (see ``HistoryQuery``), bounded by ``Limits``.
    public func history(_ query: HistoryQuery, store: some SeerStore) throws -> HistoryPage {
        try check(query)
        return try store.history(query)
    }

    /// Totals for the scans a query selects, bounded by ``Limits``.
    public func statistics(_ query: HistoryQuery, store: some SeerStore) throws -> Statistics {
        try check(query)
        return try store.statistics(query)
    }

    /// One scan with every field and its counterfeit reports.
    /// - Throws: ``StoreError`` `notFound` when there is no such scan.
    public func scanDetails(id: Int64, store: some SeerStore) throws -> ScanDetails {
        guard let details = try store.scan(id: id) else {
            throw StoreError(code: "notFound", message: "There is no scan #\(id).")
        }
        return details
    }

    /// Records a user's report that the product of a scan is counterfeit. The report is kept with
    /// the scan (``scanDetails(id:store:)``) and counted by ``statistics(_:store:)`` as `reported`.
    ///
    /// - Parameters:
    ///   - reason: the user's words, optional; at most ``Limits/reportReasonCharacters`` characters,
    ///     no control characters (line breaks allowed).
    /// - Throws: ``PayloadIssue`` for a bad reason; ``StoreError`` `notFound` for an unknown scan.
    public func reportCounterfeit(scanID: Int64, reason: String?, at time: Double, store: some SeerStore) throws -> CounterfeitReport {
        var text: String?
        if let reason {
            let trimmed = reason.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.count > configuration.limits.reportReasonCharacters {
                throw PayloadIssue(
                    code: "reasonTooLong",
                    message: "A reason has at most \(configuration.limits.reportReasonCharacters) characters; this has \(trimmed.count).")
            }
            if trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" }) {
                throw PayloadIssue(code: "controlCharacter", message: "The reason contains control characters.")
            }
            text = trimmed.isEmpty ? nil : trimmed
        }
        return try store.report(scanID: scanID, reason: text, at: time)
    }

    /// Registers a plate owner: checks the details (``OwnerCheck``: name, email, plate by
    /// ``PlateText/validate(_:)``), makes a new opaque recipient id and stores the owner.
    ///
    /// - Returns: the recipient id, the canonical plate and the country; never the name or email.
    /// - Throws: ``PayloadIssue`` naming the field that is wrong; ``StoreError``.
    public func addUser(name: String, email: String, plate: String, country: Country, store: some SeerStore) throws -> UserReceipt {
        var owner = PlateOwner(id: "rcp-new", name: name.trimmingCharacters(in: .whitespaces), email: email, plate: plate, country: country)
        if let (field, message) = OwnerCheck.problem(owner) {
            throw PayloadIssue(code: "invalid\(field.prefix(1).uppercased())\(field.dropFirst())", message: "\(field): \(message)")
        }
        for _ in 0..<16 {
            owner.id = Self.newRecipientID()
            if try !store.userExists(id: owner.id) { break }
        }
        try store.addUser(owner)
        return UserReceipt(recipient: owner.id, plate: PlateText.canonical(plate), country: country)
    }

    /// `rcp-` and 12 random hex digits (from the system's random source).
    static func newRecipientID() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() & 0xFFFF_FFFF_FFFF
        let hex = String(value, radix: 16)
        return "rcp-" + String(repeating: "0", count: 12 - hex.count) + hex
    }
}
