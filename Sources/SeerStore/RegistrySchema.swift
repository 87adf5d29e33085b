import Foundation
import SeerVerify

/// The keys a registry file may hold, checked before decoding: a misspelled key is an error naming
/// the file, the record and the key, never silently ignored.
enum RegistrySchema {
    /// Allowed keys of each kind of record, and the record kinds under each array.
    static let top: Set<String> = ["brands", "products", "serials", "users", "chargers"]
    static let records: [String: Set<String>] = [
        "brands": ["id", "name", "requiresSignature", "keys"],
        "products": ["gtin", "name", "brand", "category", "markets"],
        "serials": ["gtin", "serial", "status"],
        "users": ["id", "name", "email", "plate", "region", "country"],
        "chargers": ["id", "serial", "location", "status"],
    ]
    static let key: Set<String> = ["kid", "algorithm", "publicKey", "status"]

    /// Throws ``ImportError`` for the first unknown key, or for a file that is no JSON object of arrays.
    static func check(name: String, data: Data) throws {
        let json: Any
        do {
            json = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw ImportError(file: name, record: nil, field: nil, message: "not valid JSON")
        }
        guard let object = json as? [String: Any] else {
            throw ImportError(file: name, record: nil, field: nil, message: "a registry file is a JSON object with any of \(list(top))")
        }
        for key in object.keys.sorted() where !top.contains(key) {
            throw ImportError(file: name, record: nil, field: key, message: "unknown key; a registry file holds any of \(list(top))")
        }
        for (kind, value) in object.sorted(by: { $0.key < $1.key }) {
            guard let array = value as? [Any] else {
                throw ImportError(file: name, record: kind, field: nil, message: "expected an array of records")
            }
            let allowed = records[kind] ?? []
            for (index, item) in array.enumerated() {
                let record = "\(kind)[\(index)]"
                guard let fields = item as? [String: Any] else {
                    throw ImportError(file: name, record: record, field: nil, message: "expected an object")
                }
                for field in fields.keys.sorted() where !allowed.contains(field) {
                    throw ImportError(file: name, record: record, field: field, message: "unknown field; known: \(list(allowed))")
                }
                if kind == "brands", let keys = fields["keys"] as? [Any] {
                    for (keyIndex, keyItem) in keys.enumerated() {
                        guard let keyFields = keyItem as? [String: Any] else {
                            throw ImportError(file: name, record: record, field: "keys[\(keyIndex)]", message: "expected an object")
                        }
                        for field in keyFields.keys.sorted() where !key.contains(field) {
                            throw ImportError(
                                file: name, record: record, field: "keys[\(keyIndex)].\(field)", message: "unknown field; known: \(list(key))")
                        }
                    }
                }
            }
        }
    }

    static func list(_ keys: Set<String>) -> String { keys.sorted().joined(separator: ", ") }
}

/// Checks on a plate owner's details, shared by registry import and `seer user add`.
public enum OwnerCheck {
    /// The first problem with `owner`, as (field, message), or nil when it is fine. The plate must
    /// pass ``PlateText/validate(_:)``; the name must be 1–100 characters without control
    /// characters; the email one address (`local@domain.tld`, at most 254 characters, no spaces).
    public static func problem(_ owner: PlateOwner) -> (field: String, message: String)? {
        if owner.id.isEmpty || owner.id.count > 64 || owner.id.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 }) {
            return ("id", "an id has 1–64 characters and no spaces")
        }
        let name = owner.name.trimmingCharacters(in: .whitespaces)
        if name.isEmpty { return ("name", "empty") }
        if name.count > 100 { return ("name", "at most 100 characters") }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return ("name", "contains control characters")
        }
        if let problem = emailProblem(owner.email) { return ("email", problem) }
        do {
            _ = try PlateText.validate(owner.plate)
        } catch {
            return ("plate", error.message)
        }
        return nil
    }

    static func emailProblem(_ email: String) -> String? {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        let bad = "'\(email.prefix(80))' is not an email address"
        guard parts.count == 2, !parts[0].isEmpty, email.count <= 254 else { return bad }
        let domain = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        guard domain.count >= 2, domain.allSatisfy({ !$0.isEmpty }) else { return bad }
        if email.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) {
            return bad
        }
        return nil
    }
}
