import COpenSSL

/// SHA-256, at once (`SHA256.hash(data:)`) or in parts (`update(data:)`, then `finalize()`).
public struct SHA256: ~Copyable {
    /// The digest context, freed with the hasher.
    private let context: OpaquePointer

    /// An empty hasher.
    public init() {
        // Allocation and SHA-256's setup fail only when memory does, as for any allocation.
        guard let context = EVP_MD_CTX_new() else { fatalError("SHA256: out of memory") }
        precondition(EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1, "SHA256: libcrypto could not set up SHA-256")
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds `data`.
    public mutating func update(data: [UInt8]) {
        let ok = data.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
        precondition(ok == 1, "SHA256: libcrypto could not hash")
    }

    /// The 32-byte digest of everything added.
    public consuming func finalize() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = out.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        precondition(ok == 1 && length == 32, "SHA256: libcrypto could not finish the digest")
        return out
    }

    /// The 32-byte digest of `data`.
    public static func hash(data: [UInt8]) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: data)
        return hasher.finalize()
    }
}
