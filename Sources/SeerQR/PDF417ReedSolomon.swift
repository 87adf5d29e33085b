/// Reed–Solomon error correction of PDF417 (ISO/IEC 15438): codewords are elements of the prime
/// field GF(929), the generator polynomial's roots are 3¹ … 3ᵏ for k = 2^(level+1) check codewords,
/// and a symbol's codewords (data first, highest power first) form a multiple of it.
enum PDF417ReedSolomon {
    static let p = 929

    /// Powers of 3 (the field's generator) and their logarithms.
    static let tables: (exp: [Int], log: [Int]) = {
        var exp = [Int](repeating: 0, count: 929 * 2)
        var log = [Int](repeating: 0, count: 929)
        var v = 1
        for i in 0..<928 {
            exp[i] = v
            log[v] = i
            v = v * 3 % 929
        }
        for i in 928..<(929 * 2) { exp[i] = exp[i - 928] }
        return (exp, log)
    }()

    @inline(__always) static func mul(_ a: Int, _ b: Int) -> Int { a * b % p }
    @inline(__always) static func add(_ a: Int, _ b: Int) -> Int { (a + b) % p }
    @inline(__always) static func sub(_ a: Int, _ b: Int) -> Int { (a - b + p) % p }
    static func inv(_ a: Int) -> Int {
        precondition(a != 0)
        return tables.exp[928 - tables.log[a]]
    }
    static func pow3(_ n: Int) -> Int { tables.exp[((n % 928) + 928) % 928] }

    /// A polynomial (lowest power first) at `x`.
    static func eval(_ poly: [Int], _ x: Int) -> Int {
        var r = 0
        for c in poly.reversed() { r = (r * x + c) % p }
        return r
    }

    /// The generator polynomial of `k` check codewords, lowest power first.
    static func generator(_ k: Int) -> [Int] {
        var g = [1]
        for j in 1...k {
            // Multiply by (x − 3^j).
            let root = pow3(j)
            var next = [Int](repeating: 0, count: g.count + 1)
            for (i, c) in g.enumerated() {
                next[i + 1] = add(next[i + 1], c)
                next[i] = sub(next[i], mul(c, root))
            }
            g = next
        }
        return g
    }

    /// The `k` check codewords for `data` (used by the tests, and to check a correction).
    static func checkCodewords(_ data: [Int], k: Int) -> [Int] {
        let g = Array(generator(k).reversed())  // monic, highest power first
        var poly = data + [Int](repeating: 0, count: k)
        for i in 0..<data.count where poly[i] != 0 {
            let c = poly[i]
            for j in 0...k { poly[i + j] = sub(poly[i + j], mul(c, g[j])) }
        }
        // The codeword polynomial is data·x^k minus the remainder: the check codewords negate it.
        return poly[data.count...].map { sub(0, $0) }
    }

    /// The syndromes S_j = c(3^j), j = 1…k, of codewords given highest power first.
    static func syndromes(_ codewords: [Int], k: Int) -> [Int] {
        (1...k).map { j in
            let x = pow3(j)
            var r = 0
            for c in codewords { r = (r * x + c) % p }
            return r
        }
    }

    enum Failure: Error, Equatable, CustomStringConvertible {
        case tooManyErasures(Int, checkCodewords: Int)
        case uncorrectable
        case beyondCapacity(errors: Int, erasures: Int, checkCodewords: Int)
        var description: String {
            switch self {
            case .tooManyErasures(let e, let k): "\(e) erasures exceed what \(k) check codewords correct"
            case .uncorrectable: "the codewords hold more errors than their check codewords locate"
            case .beyondCapacity(let t, let e, let k): "\(t) errors and \(e) erasures exceed what \(k) check codewords correct with two to spare"
            }
        }
    }

    /// Corrects `codewords` (highest power first; the last `k` are check codewords) in place, given
    /// the indexes known unreadable. Corrects only within e + 2t ≤ k − 2 (the standard keeps two
    /// check codewords for detection), and checks that the result's syndromes are all zero.
    /// Returns the number of codewords changed.
    @discardableResult
    static func correct(_ codewords: inout [Int], k: Int, erasures: [Int] = []) throws(Failure) -> Int {
        let n = codewords.count
        let erasures = Array(Set(erasures)).sorted()
        guard erasures.count <= max(0, k - 2) else { throw .tooManyErasures(erasures.count, checkCodewords: k) }
        for i in erasures { codewords[i] = 0 }
        let s = syndromes(codewords, k: k)
        if s.allSatisfy({ $0 == 0 }) { return 0 }
        // The locator X of index i is 3^(n-1-i).
        func locator(_ i: Int) -> Int { pow3(n - 1 - i) }
        // Erasure locator Γ(x) = Π (1 − X x).
        var lambda = [1]
        for i in erasures {
            let x = locator(i)
            var next = lambda + [0]
            for j in 0..<lambda.count { next[j + 1] = sub(next[j + 1], mul(lambda[j], x)) }
            lambda = next
        }
        var b = lambda
        var l = erasures.count
        let e = erasures.count
        // Berlekamp–Massey from the erasure locator.
        for r in e..<k {
            var delta = 0
            for i in 0..<lambda.count where r - i >= 0 { delta = add(delta, mul(lambda[i], s[r - i])) }
            let xb = [0] + b
            if delta == 0 {
                b = xb
                continue
            }
            var t = lambda
            if t.count < xb.count { t += [Int](repeating: 0, count: xb.count - t.count) }
            for i in 0..<xb.count { t[i] = sub(t[i], mul(delta, xb[i])) }
            if 2 * l <= r + e {
                l = r + 1 + e - l
                let di = inv(delta)
                b = lambda.map { mul($0, di) }
            } else {
                b = xb
            }
            lambda = t
        }
        while lambda.count > 1 && lambda.last == 0 { lambda.removeLast() }
        let degree = lambda.count - 1
        guard degree == l, degree >= e else { throw .uncorrectable }
        // Roots: index i is in error when Λ(X_i⁻¹) = 0.
        var positions: [Int] = []
        for i in 0..<n where eval(lambda, inv(locator(i))) == 0 { positions.append(i) }
        guard positions.count == degree else { throw .uncorrectable }
        let errors = degree - e
        guard e + 2 * errors <= k - 2 else { throw .beyondCapacity(errors: errors, erasures: e, checkCodewords: k) }
        // Ω(x) = S(x) Λ(x) mod x^k, S(x) = Σ S_{j+1} x^j.
        var omega = [Int](repeating: 0, count: k)
        for i in 0..<lambda.count {
            for j in 0..<k where i + j < k { omega[i + j] = add(omega[i + j], mul(lambda[i], s[j])) }
        }
        // Λ'(x).
        let derivative = (1..<max(1, lambda.count)).map { mul(lambda[$0], $0 % p) }
        var changed = 0
        for i in positions {
            let xInv = inv(locator(i))
            let den = eval(derivative, xInv)
            guard den != 0 else { throw .uncorrectable }
            let value = sub(0, mul(eval(omega, xInv), inv(den)))
            if value != 0 { changed += 1 }
            codewords[i] = sub(codewords[i], value)
        }
        guard syndromes(codewords, k: k).allSatisfy({ $0 == 0 }) else { throw .uncorrectable }
        return changed
    }
}
