import Foundation
import SeerVerify

/// Validates registry files and writes them inside the caller's transaction; the first error aborts it.
struct RegistryImporter {
    let db: any SQLConnection
    let files: [(name: String, file: RegistryFile)]

    func fail(_ file: String, _ record: String, _ field: String?, _ message: String) -> ImportError {
        ImportError(file: file, record: record, field: field, message: message)
    }

    /// Decodes one registry file strictly: unknown keys anywhere and values of the wrong type are
    /// ``ImportError``s naming the file, the record and the field.
    static func decode(name: String, data: Data) throws -> RegistryFile {
        try RegistrySchema.check(name: name, data: data)
        do {
            return try JSONDecoder().decode(RegistryFile.self, from: data)
        } catch let error as DecodingError {
            let (path, message): ([CodingKey], String)
            switch error {
            case .typeMismatch(let type, let context): (path, message) = (context.codingPath, "expected \(type): \(context.debugDescription)")
            case .valueNotFound(_, let context): (path, message) = (context.codingPath, "missing value")
            case .keyNotFound(let key, let context): (path, message) = (context.codingPath + [key], "missing field")
            case .dataCorrupted(let context):
                (path, message) = (context.codingPath, context.codingPath.isEmpty ? "not valid JSON" : context.debugDescription)
            @unknown default: (path, message) = ([], "\(error)")
            }
            var record: String?
            var field: String?
            if path.count >= 2, let index = path[1].intValue {
                record = "\(path[0].stringValue)[\(index)]"
                let rest = path.dropFirst(2).map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
                if !rest.isEmpty { field = rest.joined(separator: ".").replacingOccurrences(of: ".[", with: "[") }
            } else if let first = path.first {
                record = first.stringValue
            }
            throw ImportError(file: name, record: record, field: field, message: message)
        } catch {
            throw ImportError(file: name, record: nil, field: nil, message: "not valid JSON: \(error)")
        }
    }

    /// Imports every file in named stages; the first error aborts the caller's transaction.
    func run() throws -> ImportSummary {
        try checkDuplicates()
        var summary = ImportSummary(files: files.count, brands: 0, keys: 0, products: 0, serials: 0, users: 0, chargers: 0)
        try importBrands(into: &summary)
        try importProducts(into: &summary)
        try importSerials(into: &summary)
        try importUsers(into: &summary)
        try importChargers(into: &summary)
        return summary
    }

    /// Refuses a record whose identity (brand id, key id, GTIN, GTIN and serial, user id, charger id)
    /// appears twice in the files of one import, naming both places.
    func checkDuplicates() throws {
        var seen: [String: String] = [:]
        func note(_ identity: String, _ name: String, _ record: String, _ field: String) throws {
            let place = "\(name): \(record)"
            if let first = seen[identity] {
                throw fail(name, record, field, "duplicate: the same \(field) as \(first); each record appears once per import")
            }
            seen[identity] = place
        }
        for (name, file) in files {
            for (index, brand) in (file.brands ?? []).enumerated() {
                try note("brand \(brand.id)", name, "brands[\(index)]", "id")
                for (keyIndex, key) in brand.keys.enumerated() {
                    try note("key \(key.kid)", name, "brands[\(index)]", "keys[\(keyIndex)].kid")
                }
            }
            for (index, product) in (file.products ?? []).enumerated() {
                let gtin = (try? GS1.normalizeGTIN(product.gtin).get()) ?? product.gtin
                try note("product \(gtin)", name, "products[\(index)]", "gtin")
            }
            for (index, serial) in (file.serials ?? []).enumerated() {
                let gtin = (try? GS1.normalizeGTIN(serial.gtin).get()) ?? serial.gtin
                try note("serial \(gtin) \(serial.serial)", name, "serials[\(index)]", "serial")
            }
            for (index, user) in (file.users ?? []).enumerated() {
                try note("user \(user.id)", name, "users[\(index)]", "id")
            }
            for (index, charger) in (file.chargers ?? []).enumerated() {
                try note("charger \(charger.id)", name, "chargers[\(index)]", "id")
            }
        }
    }

    /// Brands and their keys; a key id may belong to one brand only.
    func importBrands(into summary: inout ImportSummary) throws {
        var kids: [String: String] = [:]
        for (name, file) in files {
            for (index, brand) in (file.brands ?? []).enumerated() {
                let record = "brands[\(index)]"
                if brand.id.trimmingCharacters(in: .whitespaces).isEmpty { throw fail(name, record, "id", "empty") }
                if brand.name.trimmingCharacters(in: .whitespaces).isEmpty { throw fail(name, record, "name", "empty") }
                try db.execute(
                    """
                        INSERT INTO brand(id, name, requiresSignature) VALUES (?, ?, ?)
                        ON CONFLICT(id) DO UPDATE SET name = excluded.name, requiresSignature = excluded.requiresSignature
                        """,
                    [brand.id.sqlValue, brand.name.sqlValue, brand.requiresSignature.sqlValue])
                summary.brands += 1
                for (keyIndex, key) in brand.keys.enumerated() {
                    let field = "keys[\(keyIndex)]"
                    if key.kid.isEmpty { throw fail(name, record, field + ".kid", "empty") }
                    if let owner = kids[key.kid], owner != brand.id {
                        throw fail(name, record, field + ".kid", "key id \(key.kid) already belongs to brand \(owner)")
                    }
                    kids[key.kid] = brand.id
                    if let problem = key.keyProblem { throw fail(name, record, field + ".publicKey", problem) }
                    if let owner = try db.row("SELECT brand FROM brandKey WHERE kid = ?", [key.kid.sqlValue]).flatMap({ $0.get("brand", as: String.self) }),
                        owner != brand.id
                    {
                        throw fail(name, record, field + ".kid", "key id \(key.kid) already belongs to brand \(owner)")
                    }
                    try db.execute(
                    """
                            INSERT INTO brandKey(kid, brand, algorithm, publicKey, status) VALUES (?, ?, ?, ?, ?)
                            ON CONFLICT(kid) DO UPDATE SET algorithm = excluded.algorithm,
                                publicKey = excluded.publicKey, status = excluded.status
                            """,
                    [key.kid.sqlValue, brand.id.sqlValue, key.algorithm.rawValue.sqlValue, key.publicKey.sqlValue, key.status.rawValue.sqlValue])
                    summary.keys += 1
                }
            }
        }
    }

    /// Products; each names a brand in these files or the store.
    func importProducts(into summary: inout ImportSummary) throws {
        let brandsInFiles = Set(files.flatMap { $0.file.brands ?? [] }.map(\.id))
        for (name, file) in files {
            for (index, product) in (file.products ?? []).enumerated() {
                let record = "products[\(index)]"
                let gtin: String
                switch GS1.normalizeGTIN(product.gtin) {
                case .success(let normal): gtin = normal
                case .failure(let issue): throw fail(name, record, "gtin", issue.message)
                }
                if product.name.trimmingCharacters(in: .whitespaces).isEmpty { throw fail(name, record, "name", "empty") }
                if product.category.trimmingCharacters(in: .whitespaces).isEmpty { throw fail(name, record, "category", "empty") }
                if !brandsInFiles.contains(product.brand),
                    !(try db.exists("SELECT 1 FROM brand WHERE id = ?", [product.brand.sqlValue]))
                {
                    throw fail(name, record, "brand", "no brand '\(product.brand)' in these files or the store")
                }
                for (marketIndex, market) in product.markets.enumerated()
                where market.count != 2 || !market.allSatisfy({ $0.isASCII && $0.isUppercase }) {
                    throw fail(name, record, "markets[\(marketIndex)]", "'\(market)' is not an ISO 3166-1 alpha-2 code (e.g. DE)")
                }
                try db.execute(
                    """
                        INSERT INTO product(gtin, name, brand, category, markets) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT(gtin) DO UPDATE SET name = excluded.name, brand = excluded.brand,
                            category = excluded.category, markets = excluded.markets
                        """,
                    [gtin.sqlValue, product.name.sqlValue, product.brand.sqlValue, product.category.sqlValue, product.markets.joined(separator: ",").sqlValue])
                summary.products += 1
            }
        }
    }

    /// Serials; each names a product in these files or the store.
    func importSerials(into summary: inout ImportSummary) throws {
        let gtinsInFiles = Set(files.flatMap { $0.file.products ?? [] }.compactMap { try? GS1.normalizeGTIN($0.gtin).get() })
        for (name, file) in files {
            for (index, serial) in (file.serials ?? []).enumerated() {
                let record = "serials[\(index)]"
                let gtin: String
                switch GS1.normalizeGTIN(serial.gtin) {
                case .success(let normal): gtin = normal
                case .failure(let issue): throw fail(name, record, "gtin", issue.message)
                }
                if !gtinsInFiles.contains(gtin),
                    !(try db.exists("SELECT 1 FROM product WHERE gtin = ?", [gtin.sqlValue]))
                {
                    throw fail(name, record, "gtin", "no product \(gtin) in these files or the store")
                }
                if serial.serial.isEmpty || serial.serial.count > 20 {
                    throw fail(name, record, "serial", "a serial (AI 21) has 1–20 characters")
                }
                try db.execute(
                    """
                        INSERT INTO serial(gtin, serial, status) VALUES (?, ?, ?)
                        ON CONFLICT(gtin, serial) DO UPDATE SET status = excluded.status
                        """,
                    [gtin.sqlValue, serial.serial.sqlValue, serial.status.rawValue.sqlValue])
                summary.serials += 1
            }
        }
    }

    /// Plate owners, checked as `seer user add` checks them (``OwnerCheck``).
    func importUsers(into summary: inout ImportSummary) throws {
        for (name, file) in files {
            for (index, user) in (file.users ?? []).enumerated() {
                let record = "users[\(index)]"
                if let (field, message) = OwnerCheck.problem(user) { throw fail(name, record, field, message) }
                let plate = PlateText.canonical(user.plate)
                try db.execute(
                    """
                        INSERT INTO plateOwner(id, name, email, plate, canonicalPlate, region) VALUES (?, ?, ?, ?, ?, ?)
                        ON CONFLICT(id) DO UPDATE SET name = excluded.name, email = excluded.email, plate = excluded.plate,
                            canonicalPlate = excluded.canonicalPlate, region = excluded.region
                        """,
                    [user.id.sqlValue, user.name.sqlValue, user.email.sqlValue, user.plate.sqlValue, plate.sqlValue, user.country.rawValue.sqlValue])
                summary.users += 1
            }
        }
    }

    /// Chargers; each id is six digits, 100000–999999.
    func importChargers(into summary: inout ImportSummary) throws {
        for (name, file) in files {
            for (index, charger) in (file.chargers ?? []).enumerated() {
                let record = "chargers[\(index)]"
                if case .failure(let issue) = ChargerID.parseTyped(charger.id) { throw fail(name, record, "id", issue.message) }
                if charger.serial.isEmpty { throw fail(name, record, "serial", "empty") }
                if charger.location.isEmpty { throw fail(name, record, "location", "empty") }
                try db.execute(
                    """
                        INSERT INTO charger(id, serial, location, status) VALUES (?, ?, ?, ?)
                        ON CONFLICT(id) DO UPDATE SET serial = excluded.serial, location = excluded.location,
                            status = excluded.status
                        """,
                    [charger.id.sqlValue, charger.serial.sqlValue, charger.location.sqlValue, charger.status.rawValue.sqlValue])
                summary.chargers += 1
            }
        }
    }
}
