/// Arithmetic in GF(2⁸) modulo x⁸ + x⁴ + x³ + x² + 1 (0x11D), the field of QR Code's Reed–Solomon
/// codes, with α = 2.
package enum GF256 {
    /// `exp[i]` = αⁱ for i in 0..<512 (doubled so that sums of two logarithms need no reduction);
    /// `log[v]` = i with αⁱ = v for v in 1...255.
    package static let tables: (exp: [UInt8], log: [Int]) = {
        var exp = [UInt8](repeating: 0, count: 512)
        var log = [Int](repeating: 0, count: 256)
        var value = 1
        for power in 0..<255 {
            exp[power] = UInt8(value)
            log[value] = power
            value <<= 1
            if value & 0x100 != 0 { value ^= 0x11D }
        }
        for power in 255..<512 { exp[power] = exp[power - 255] }
        return (exp, log)
    }()

    @inline(__always)
    package static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        if a == 0 || b == 0 { return 0 }
        return tables.exp[tables.log[Int(a)] + tables.log[Int(b)]]
    }

    @inline(__always)
    static func divide(_ a: UInt8, _ b: UInt8) -> UInt8 {
        precondition(b != 0, "division by zero in GF(256)")
        if a == 0 { return 0 }
        return tables.exp[tables.log[Int(a)] + 255 - tables.log[Int(b)]]
    }

    /// αⁱ for any integer i.
    @inline(__always)
    static func power(_ i: Int) -> UInt8 {
        let r = i % 255
        return tables.exp[r < 0 ? r + 255 : r]
    }
}

/// Reed–Solomon codes over GF(256) with generator roots α⁰ … α^(n−1), as QR Code uses them.
package enum ReedSolomon {
    /// Coefficients (highest power first, leading 1 dropped) of ∏ (x − αⁱ), i = 0..<degree.
    package static func generator(degree: Int) -> [UInt8] {
        var poly: [UInt8] = [1]
        for root in 0..<degree {
            var next = [UInt8](repeating: 0, count: poly.count + 1)
            let alpha = GF256.tables.exp[root]
            for (index, coefficient) in poly.enumerated() {
                next[index] ^= coefficient
                next[index + 1] ^= GF256.multiply(coefficient, alpha)
            }
            poly = next
        }
        return Array(poly.dropFirst())
    }

    /// The remainder of data·x^degree divided by the generator: the error-correction codewords.
    package static func remainder(_ data: [UInt8], generator: [UInt8]) -> [UInt8] {
        var remainder = [UInt8](repeating: 0, count: generator.count)
        for byte in data {
            let factor = byte ^ remainder[0]
            remainder.removeFirst()
            remainder.append(0)
            if factor != 0 {
                for index in generator.indices { remainder[index] ^= GF256.multiply(generator[index], factor) }
            }
        }
        return remainder
    }

    /// Corrects up to `limit` codeword errors in `block` (data then `eccCount` check codewords, the
    /// first codeword the highest power), in place.
    ///
    /// Berlekamp–Massey finds the error locator, a Chien search its roots and Forney's formula the
    /// error values. A block is given up (nil) when the locator's degree exceeds `limit`, when it
    /// does not have as many distinct roots inside the block as its degree, or when the corrected
    /// block still has a non-zero syndrome: each of these means more errors than the code can fix.
    /// - Returns: the number of codewords corrected, or nil when the block cannot be trusted.
    package static func correct(_ block: inout [UInt8], eccCount: Int, limit: Int) -> Int? {
        correct(&block, eccCount: eccCount, limit: limit, erasures: []).map(\.errors)
    }

    /// Corrects errors and erasures (codewords known to be unreliable, by array index) in `block`,
    /// in place: each error costs two check codewords and each erasure one, and together they may
    /// use at most `2 × limit` (the capacity ``correct(_:eccCount:limit:)`` allows for errors alone).
    /// - Returns: the errors found outside the erasures and the erased codewords that were wrong, or
    ///   nil when the block cannot be trusted.
    package static func correct(_ block: inout [UInt8], eccCount: Int, limit: Int, erasures: [Int]) -> (errors: Int, erased: Int)? {
        let n = block.count
        guard eccCount > 0, n > eccCount, n <= 255 else { return nil }
        let syndromes = syndromeValues(block, count: eccCount)
        if syndromes.allSatisfy({ $0 == 0 }) { return (0, 0) }
        guard limit > 0, erasures.count <= 2 * limit else { return nil }
        let erasedPowers = erasures.map { n - 1 - $0 }

        // Berlekamp–Massey: the shortest LFSR (errata locator Λ, lowest power first) generating S,
        // started from the erasure locator Γ = ∏ (1 − X_j x) over the erased positions.
        var lambda: [UInt8] = [1]
        for p in erasedPowers {
            let x = GF256.power(p)
            var next = lambda + [0]
            for i in 0..<lambda.count { next[i + 1] ^= GF256.multiply(lambda[i], x) }
            lambda = next
        }
        var previous: [UInt8] = lambda
        var length = erasures.count
        var shift = 1
        var previousDiscrepancy: UInt8 = 1
        for k in erasures.count..<eccCount {
            var discrepancy = syndromes[k]
            for i in 1..<lambda.count where i <= length {
                discrepancy ^= GF256.multiply(lambda[i], syndromes[k - i])
            }
            if discrepancy == 0 {
                shift += 1
                continue
            }
            let factor = GF256.divide(discrepancy, previousDiscrepancy)
            var updated = lambda
            if updated.count < previous.count + shift { updated += [UInt8](repeating: 0, count: previous.count + shift - updated.count) }
            for (i, c) in previous.enumerated() { updated[i + shift] ^= GF256.multiply(factor, c) }
            if 2 * length <= k + erasures.count {
                previous = lambda
                length = k + 1 + erasures.count - length
                previousDiscrepancy = discrepancy
                shift = 1
            } else {
                shift += 1
            }
            lambda = updated
        }
        while lambda.count > 1 && lambda.last == 0 { lambda.removeLast() }
        let degree = lambda.count - 1
        // Errata: the erasures plus the errors found; two check codewords per error, one per erasure.
        let errorsFound = degree - erasures.count
        guard degree == length, degree >= 1, errorsFound >= 0, 2 * errorsFound + erasures.count <= 2 * limit else { return nil }

        // Chien search: Λ(X⁻¹) = 0 for each error at power p of x (array index n − 1 − p), X = αᵖ.
        var positions: [Int] = []
        for p in 0..<n {
            let xInverse = GF256.power(-p)
            var value: UInt8 = 0
            var term: UInt8 = 1
            for c in lambda {
                value ^= GF256.multiply(c, term)
                term = GF256.multiply(term, xInverse)
            }
            if value == 0 { positions.append(p) }
        }
        guard positions.count == degree, Set(erasedPowers).isSubset(of: positions) else { return nil }

        // Forney: error value at X = X · Ω(X⁻¹) / Λ'(X⁻¹) with Ω = S·Λ mod x^(2t), roots from α⁰.
        var omega = [UInt8](repeating: 0, count: eccCount)
        for i in 0..<eccCount {
            var v: UInt8 = 0
            for j in 0...min(i, degree) { v ^= GF256.multiply(lambda[j], syndromes[i - j]) }
            omega[i] = v
        }
        var erasedWrong = 0
        for p in positions {
            let x = GF256.power(p), xInverse = GF256.power(-p)
            var omegaValue: UInt8 = 0
            var term: UInt8 = 1
            for c in omega {
                omegaValue ^= GF256.multiply(c, term)
                term = GF256.multiply(term, xInverse)
            }
            // Formal derivative in characteristic 2: only odd powers survive.
            var derivative: UInt8 = 0
            var oddTerm = UInt8(1)  // X⁻¹ to the power (i − 1) for odd i
            let xInverseSquared = GF256.multiply(xInverse, xInverse)
            for i in stride(from: 1, through: degree, by: 2) {
                derivative ^= GF256.multiply(lambda[i], oddTerm)
                oddTerm = GF256.multiply(oddTerm, xInverseSquared)
            }
            guard derivative != 0 else { return nil }
            let magnitude = GF256.multiply(x, GF256.divide(omegaValue, derivative))
            if magnitude != 0 && erasedPowers.contains(p) { erasedWrong += 1 }
            block[n - 1 - p] ^= magnitude
        }
        guard syndromeValues(block, count: eccCount).allSatisfy({ $0 == 0 }) else { return nil }
        return (errorsFound, erasedWrong)
    }

    /// S_j = r(αʲ) for j in 0..<count (Horner, highest power first).
    static func syndromeValues(_ block: [UInt8], count: Int) -> [UInt8] {
        (0..<count).map { j in
            let a = GF256.tables.exp[j]
            var v: UInt8 = 0
            for c in block { v = GF256.multiply(v, a) ^ c }
            return v
        }
    }
}
