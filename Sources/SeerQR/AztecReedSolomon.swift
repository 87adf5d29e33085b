/// A Galois field GF(2^m) for m up to 12, by its primitive polynomial, with α = 2: the fields of
/// Aztec Code's Reed–Solomon codes.
package struct GaloisField: Sendable {
    /// The number of bits of an element.
    package let bits: Int
    /// The number of elements (2^m).
    package let size: Int
    /// `exp[i]` = αⁱ for i in 0..<2·(size − 1); `log[v]` = i with αⁱ = v for v ≥ 1.
    let exp: [Int]
    let log: [Int]

    /// The field of `bits`-bit elements modulo `polynomial` (its bits including x^m).
    package init(bits: Int, polynomial: Int) {
        self.bits = bits
        self.size = 1 << bits
        var exp = [Int](repeating: 0, count: 2 * size)
        var log = [Int](repeating: 0, count: size)
        var value = 1
        for power in 0..<(size - 1) {
            exp[power] = value
            log[value] = power
            value <<= 1
            if value & size != 0 { value ^= polynomial }
        }
        for power in (size - 1)..<(2 * size) { exp[power] = exp[power - (size - 1)] }
        self.exp = exp
        self.log = log
    }

    /// GF(16), x⁴ + x + 1: the mode message.
    package static let gf16 = GaloisField(bits: 4, polynomial: 0x13)
    /// GF(64), x⁶ + x + 1: symbols of 1–2 layers.
    package static let gf64 = GaloisField(bits: 6, polynomial: 0x43)
    /// GF(256), x⁸ + x⁵ + x³ + x² + 1: symbols of 3–8 layers.
    package static let gf256 = GaloisField(bits: 8, polynomial: 0x12D)
    /// GF(1024), x¹⁰ + x³ + 1: symbols of 9–22 layers.
    package static let gf1024 = GaloisField(bits: 10, polynomial: 0x409)
    /// GF(4096), x¹² + x⁶ + x⁵ + x³ + 1: symbols of 23–32 layers.
    package static let gf4096 = GaloisField(bits: 12, polynomial: 0x1069)

    @inline(__always) func multiply(_ a: Int, _ b: Int) -> Int {
        a == 0 || b == 0 ? 0 : exp[log[a] + log[b]]
    }

    @inline(__always) func inverse(_ a: Int) -> Int { exp[(size - 1) - log[a]] }

    /// αⁱ for any integer i.
    @inline(__always) func power(_ i: Int) -> Int {
        let r = i % (size - 1)
        return exp[r < 0 ? r + size - 1 : r]
    }
}

/// Reed–Solomon codes over a ``GaloisField`` whose generator has the roots α¹ … α^k (k check
/// symbols), as Aztec Code uses them. Words are written highest power first: data, then checks.
package enum FieldReedSolomon {
    /// The check symbols for `data` with `checkCount` of them.
    package static func encode(_ data: [Int], checkCount: Int, field: GaloisField) -> [Int] {
        // Generator ∏ (x − αⁱ), i = 1…k, highest power first.
        var generator = [1]
        for root in 1...max(1, checkCount) where checkCount > 0 {
            var next = [Int](repeating: 0, count: generator.count + 1)
            let alpha = field.power(root)
            for (index, coefficient) in generator.enumerated() {
                next[index] ^= coefficient
                next[index + 1] ^= field.multiply(coefficient, alpha)
            }
            generator = next
        }
        var remainder = [Int](repeating: 0, count: checkCount)
        guard checkCount > 0 else { return [] }
        for symbol in data {
            let factor = symbol ^ remainder[0]
            remainder.removeFirst()
            remainder.append(0)
            if factor != 0 {
                for index in 0..<checkCount { remainder[index] ^= field.multiply(generator[index + 1], factor) }
            }
        }
        return remainder
    }

    /// The syndromes S_j = word(α^j), j = 1…k.
    static func syndromes(_ word: [Int], checkCount: Int, field: GaloisField) -> [Int] {
        (1...max(1, checkCount)).map { j in
            var value = 0
            let alpha = field.power(j)
            for symbol in word { value = field.multiply(value, alpha) ^ symbol }
            return value
        }
    }

    /// Corrects `word` (data then `checkCount` check symbols) in place.
    ///
    /// Berlekamp–Massey gives the error locator, a Chien search its roots and Forney's formula the
    /// values. The word is given up (nil) when the locator's degree exceeds ⌊k/2⌋, when it does not
    /// have as many distinct roots inside the word as its degree, or when the corrected word's
    /// syndromes are not all zero: each means more errors than the code corrects.
    /// - Returns: the number of symbols corrected, or nil when the word cannot be trusted.
    package static func correct(_ word: inout [Int], checkCount: Int, field: GaloisField) -> Int? {
        guard checkCount > 0, word.count > checkCount, word.count < field.size else { return nil }
        if word.contains(where: { $0 < 0 || $0 >= field.size }) { return nil }
        let s = syndromes(word, checkCount: checkCount, field: field)
        if s.allSatisfy({ $0 == 0 }) { return 0 }
        // Berlekamp–Massey: σ(x) as coefficients of x⁰, x¹, …
        var sigma = [1], previous = [1]
        var length = 0, shift = 1, lastDiscrepancy = 1
        for n in 0..<checkCount {
            var discrepancy = s[n]
            for i in 1...max(1, length) where i <= length && i < sigma.count { discrepancy ^= field.multiply(sigma[i], s[n - i]) }
            if discrepancy == 0 {
                shift += 1
                continue
            }
            let factor = field.multiply(discrepancy, field.inverse(lastDiscrepancy))
            var next = sigma
            let needed = previous.count + shift
            if next.count < needed { next += [Int](repeating: 0, count: needed - next.count) }
            for (i, c) in previous.enumerated() { next[i + shift] ^= field.multiply(factor, c) }
            if 2 * length <= n {
                previous = sigma
                length = n + 1 - length
                lastDiscrepancy = discrepancy
                shift = 1
            } else {
                shift += 1
            }
            sigma = next
        }
        while sigma.count > 1 && sigma.last == 0 { sigma.removeLast() }
        let degree = sigma.count - 1
        guard degree == length, degree >= 1, 2 * degree <= checkCount else { return nil }
        // Chien search: position p (0 = last symbol) is in error when σ(α^(−p)) = 0.
        var positions: [Int] = []
        for p in 0..<word.count {
            var value = 0
            let x = field.power(-p)
            for c in sigma.reversed() { value = field.multiply(value, x) ^ c }
            if value == 0 { positions.append(p) }
        }
        guard positions.count == degree else { return nil }
        // Forney: Ω(x) = S(x)·σ(x) mod x^k, S(x) = Σ S_{j+1} x^j; with roots starting at α¹,
        // e_p = X·Ω(X⁻¹)/σ'(X⁻¹)·X⁻¹… which for first root α¹ reduces to Ω(X⁻¹)/σ'(X⁻¹).
        var omega = [Int](repeating: 0, count: checkCount)
        for i in 0..<checkCount {
            for j in 0...min(i, degree) { omega[i] ^= field.multiply(sigma[j], s[i - j]) }
        }
        for p in positions {
            let xInverse = field.power(-p)
            var numerator = 0
            for c in omega.reversed() { numerator = field.multiply(numerator, xInverse) ^ c }
            // σ'(x): the odd-power terms, each lowered by one power.
            var denominator = 0
            var xPower = 1
            let xInverseSquared = field.multiply(xInverse, xInverse)
            for i in stride(from: 1, through: degree, by: 2) {
                denominator ^= field.multiply(sigma[i], xPower)
                xPower = field.multiply(xPower, xInverseSquared)
            }
            guard denominator != 0 else { return nil }
            let magnitude = field.multiply(numerator, field.inverse(denominator))
            word[word.count - 1 - p] ^= magnitude
        }
        guard syndromes(word, checkCount: checkCount, field: field).allSatisfy({ $0 == 0 }) else { return nil }
        return degree
    }
}
