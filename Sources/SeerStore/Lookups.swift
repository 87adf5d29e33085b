import SeerVerify

/// Registry, history and plate reads inside one database access; a damaged row is a ``StoreError``
/// `damagedRow` naming it. Registry reads are remembered for the length of the access (a batch reads
/// the same brands, keys and products again and again), and ``prefetch(_:since:)`` reads the serials
/// and prior scans of a call's items at once, kept up to date with the scans the call saves (on
/// PostgreSQL each read is a round trip to the server).
final class DatabaseLookup<SQL: SQLConnection>: RegistryLookup, ScanHistoryLookup, PlateDirectory {
    let db: SQL
    var keys: [String: (key: BrandKey, brand: String)?] = [:]
    var brands: [String: Brand?] = [:]
    var products: [String: Product?] = [:]
    var serials: [String: SerialRecord?] = [:]
    /// Scans of the prefetched items since ``historySince``, oldest first.
    var history: [String: [PriorScan]] = [:]
    var historySince = Double.infinity

    init(db: SQL) {
        self.db = db
    }

    static func item(_ gtin: String, _ serial: String) -> String { gtin + "\u{1D}" + serial }

    /// The answer remembered in `cache`, else `read`'s, remembered.
    func remembered<T>(_ cache: inout [String: T?], _ key: String, _ read: () throws -> T?) rethrows -> T? {
        if let known = cache[key] { return known }
        let found = try read()
        cache[key] = .some(found)
        return found
    }

    func key(id: String) throws -> (key: BrandKey, brand: String)? {
        try remembered(&keys, id) {
            guard let row = try db.row("SELECT kid, brand, algorithm, publicKey, status FROM brandKey WHERE kid = ?", [.text(id)]) else { return nil }
            return (try Self.brandKey(row), try row.required("brand", of: "Key \(id)"))
        }
    }

    static func brandKey(_ row: SQLRow) throws -> BrandKey {
        let kid: String = try row.required("kid", of: "A brand key")
        let record = "Key \(kid)"
        guard let algorithm = SignatureAlgorithm(rawValue: try row.required("algorithm", of: record)),
            let status = KeyStatus(rawValue: try row.required("status", of: record))
        else { throw StoreError.damaged("\(record) in the database is damaged: it has an unknown algorithm or status.") }
        return BrandKey(kid: kid, algorithm: algorithm, publicKey: try row.required("publicKey", of: record), status: status)
    }

    func brand(id: String) throws -> Brand? {
        try remembered(&brands, id) {
            guard let row = try db.row("SELECT id, name, requiresSignature FROM brand WHERE id = ?", [.text(id)]) else { return nil }
            let keys = try db.rows("SELECT kid, brand, algorithm, publicKey, status FROM brandKey WHERE brand = ? ORDER BY kid", [.text(id)])
                .map { try Self.brandKey($0) }
            let record = "Brand \(id)"
            return Brand(
                id: id, name: try row.required("name", of: record), requiresSignature: try row.optional("requiresSignature", of: record),
                keys: keys)
        }
    }

    func product(gtin: String) throws -> Product? {
        try remembered(&products, gtin) {
            guard let row = try db.row("SELECT gtin, name, brand, category, markets FROM product WHERE gtin = ?", [.text(gtin)]) else { return nil }
            let record = "Product \(gtin)"
            let markets = (try row.required("markets", of: record) as String).split(separator: ",").map(String.init)
            return Product(
                gtin: gtin, name: try row.required("name", of: record), brand: try row.required("brand", of: record),
                category: try row.required("category", of: record), markets: markets)
        }
    }

    func serial(gtin: String, serial: String) throws -> SerialRecord? {
        if let known = serials[Self.item(gtin, serial)] { return known }
        guard let row = try db.row("SELECT gtin, serial, status FROM serial WHERE gtin = ? AND serial = ?", [.text(gtin), .text(serial)]) else { return nil }
        return try Self.serial(row)
    }

    static func serial(_ row: SQLRow) throws -> SerialRecord {
        let serial: String = try row.required("serial", of: "A serial")
        let status: String = try row.required("status", of: "Serial \(serial)")
        guard let parsed = SerialStatus(rawValue: status) else {
            throw StoreError.damaged("Serial \(serial) in the database is damaged: its status '\(status.prefix(40))' is unknown.")
        }
        return SerialRecord(gtin: try row.required("gtin", of: "Serial \(serial)"), serial: serial, status: parsed)
    }

    func priorScans(gtin: String, serial: String, since time: Double) throws -> [PriorScan] {
        if time >= historySince, let scans = history[Self.item(gtin, serial)] { return scans.filter { $0.time >= time } }
        let sql = "SELECT id, time, device, country, latitude, longitude FROM scan WHERE gtin = ? AND serial = ? AND time >= ? ORDER BY time, id"
        return try db.rows(sql, [.text(gtin), .text(serial), .real(time)]).map { try Self.priorScan($0).scan }
    }

    /// A prior scan from its row, and its item when the row names it.
    static func priorScan(_ row: SQLRow) throws -> (item: String?, scan: PriorScan) {
        let record = "Scan #\(row.get("id", as: Int64.self).map(String.init) ?? "?")"
        let scan = PriorScan(
            time: try row.required("time", of: record), device: try row.optional("device", of: record),
            country: try row.optional("country", of: record), latitude: try row.optional("latitude", of: record),
            longitude: try row.optional("longitude", of: record))
        guard let gtin: String = try row.optional("gtin", of: record), let serial: String = try row.optional("serial", of: record) else {
            return (nil, scan)
        }
        return (item(gtin, serial), scan)
    }

    /// Reads the serial records and the scans since `since` of `items`.
    func prefetch(_ items: [(gtin: String, serial: String)], since: Double) throws {
        var unique: [(gtin: String, serial: String)] = []
        var seen = Set<String>()
        for item in items where seen.insert(Self.item(item.gtin, item.serial)).inserted { unique.append(item) }
        for start in stride(from: 0, to: unique.count, by: 500) {
            let chunk = unique[start..<min(unique.count, start + 500)]
            let pairs = Array(repeating: "(?, ?)", count: chunk.count).joined(separator: ", ")
            let arguments = chunk.flatMap { [SQLValue.text($0.gtin), .text($0.serial)] }
            for item in chunk {
                serials[Self.item(item.gtin, item.serial)] = .some(nil)
                history[Self.item(item.gtin, item.serial)] = []
            }
            for row in try db.rows("SELECT gtin, serial, status FROM serial WHERE (gtin, serial) IN (\(pairs))", arguments) {
                let record = try Self.serial(row)
                serials[Self.item(record.gtin, record.serial)] = .some(record)
            }
            let sql = "SELECT id, gtin, serial, time, device, country, latitude, longitude FROM scan WHERE (gtin, serial) IN (\(pairs)) AND time >= ?"
            for row in try db.rows(sql + " ORDER BY time, id", arguments + [.real(since)]) {
                let (item, scan) = try Self.priorScan(row)
                if let item { history[item, default: []].append(scan) }
            }
        }
        if !unique.isEmpty { historySince = since }
    }

    /// Adds a scan this call saved to its item's history.
    func saved(gtin: String, serial: String, _ scan: PriorScan) {
        let item = Self.item(gtin, serial)
        guard var scans = history[item] else { return }
        scans.insert(scan, at: scans.lastIndex { $0.time <= scan.time }.map { $0 + 1 } ?? 0)
        history[item] = scans
    }

    func recipients(forPlates plates: [String], country: Country?) throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        // SQLite limits bound parameters; 500 plates per query is well inside it.
        for start in stride(from: 0, to: plates.count, by: 500) {
            let chunk = plates[start..<min(plates.count, start + 500)]
            var sql = "SELECT canonicalPlate, id FROM plateOwner WHERE canonicalPlate IN (\(Array(repeating: "?", count: chunk.count).joined(separator: ",")))"
            var arguments = chunk.map { SQLValue.text($0) }
            if let country {
                sql += " AND region = ?"
                arguments.append(.text(country.rawValue))
            }
            for row in try db.rows(sql + " ORDER BY id", arguments) {
                guard let plate = row.get("canonicalPlate", as: String.self), let id = row.get("id", as: String.self) else {
                    throw StoreError.damaged("A registered plate owner in the database is damaged.")
                }
                result[plate, default: []].append(id)
            }
        }
        return result
    }

    func charger(id: String) throws -> Charger? {
        guard let row = try db.row("SELECT * FROM charger WHERE id = ?", [.text(id)]) else { return nil }
        let record = "Charger \(id)"
        guard let status = ChargerStatus(rawValue: try row.required("status", of: record)) else {
            throw StoreError.damaged("\(record) in the database is damaged: its status is unknown.")
        }
        return Charger(id: id, serial: try row.required("serial", of: record), location: try row.required("location", of: record), status: status)
    }
}
