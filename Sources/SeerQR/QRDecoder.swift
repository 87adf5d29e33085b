/// A QR Code's modules as sampled from an image: `size` × `size`, row-major, `true` for dark.
package struct QRModules: Sendable {
    package let size: Int
    package var dark: [Bool]
    /// How sure each module's colour is (its distance from the threshold it was judged by), when
    /// known: the least sure codewords are tried as erasures when a block has too many errors.
    package var certainty: [Float]?

    package init(size: Int, dark: [Bool], certainty: [Float]? = nil) {
        precondition(dark.count == size * size, "a module grid holds size × size modules")
        self.size = size
        self.dark = dark
        self.certainty = certainty
    }

    @inline(__always) package subscript(x: Int, y: Int) -> Bool { dark[y * size + x] }

    /// The grid mirrored about its main diagonal (a code seen from behind, or written mirrored).
    package var transposed: QRModules {
        var out = dark
        var sure = certainty
        for y in 0..<size {
            for x in 0..<size {
                out[x * size + y] = dark[y * size + x]
                if let certainty { sure![x * size + y] = certainty[y * size + x] }
            }
        }
        return QRModules(size: size, dark: out, certainty: sure)
    }
}

/// A QR Code decoded from its modules.
package struct DecodedQR: Sendable {
    package var version: Int
    package var level: QRErrorCorrection
    package var mask: Int
    package var stream: QRBitstream
    /// Codewords corrected, over all blocks.
    package var errorsCorrected: Int
    /// The largest share of a block's correction capacity that was used (0 when no error was found).
    package var worstBlockLoad: Double
    /// Bits that differed from the nearest valid format information.
    package var formatDistance: Int
    /// Whether the modules were read mirrored.
    package var mirrored: Bool
}

/// Why a module grid did not decode.
package enum QRDecodeFailure: Error, Sendable, Equatable {
    /// The side is not 17 + 4·version modules.
    case badDimension
    /// The version information names another version: sample again at that one.
    case version(Int)
    /// Neither copy of the format information is within 3 bits of a valid one.
    case format
    /// A Reed–Solomon block had more errors than it can correct.
    case errorCorrection
    /// The corrected data is not a valid data stream.
    case dataStream
}

/// Decodes QR Code symbols (ISO/IEC 18004 model 2) from their sampled modules: format and version
/// information, unmasking, codeword placement, block de-interleaving, Reed–Solomon correction and
/// the data stream. Nothing is guessed: every step has a check, and any check that fails gives no
/// result.
package enum QRDecoder {
    /// Decodes `modules`, trying the mirrored reading when the straight one fails.
    package static func decode(_ modules: QRModules) -> Result<DecodedQR, QRDecodeFailure> {
        let straight = decodeOriented(modules)
        if case .success = straight { return straight }
        if case .failure(.version) = straight { return straight }
        if case .success(var mirrored) = decodeOriented(modules.transposed) {
            mirrored.mirrored = true
            return .success(mirrored)
        }
        return straight
    }

    static func decodeOriented(_ modules: QRModules) -> Result<DecodedQR, QRDecodeFailure> {
        guard let version = QRSpec.version(dimension: modules.size) else { return .failure(.badDimension) }
        let size = modules.size
        if version >= 7 {
            // Version information, both copies: when either decodes cleanly to another version, the
            // sampling grid is wrong.
            let positions = QRSpec.versionPositions(size: size)
            var named: [(version: Int, distance: Int)] = []
            for copy in [positions.first, positions.second] {
                var bits = 0
                for (i, (x, y)) in copy.enumerated() where modules[x, y] { bits |= 1 << i }
                let v = QRSpec.decodeVersion(bits)
                if v.distance <= 3 { named.append(v) }
            }
            if !named.isEmpty, !named.contains(where: { $0.version == version }) {
                let best = named.min { $0.distance < $1.distance }!
                return .failure(.version(best.version))
            }
        }
        let positions = QRSpec.formatPositions(size: size)
        var candidates: [(level: QRErrorCorrection, mask: Int, distance: Int)] = []
        for copy in [positions.first, positions.second] {
            var bits = 0
            for (i, (x, y)) in copy.enumerated() where modules[x, y] { bits |= 1 << i }
            let f = QRSpec.decodeFormat(bits)
            if f.distance <= 3, !candidates.contains(where: { $0.level == f.level && $0.mask == f.mask }) {
                candidates.append(f)
            }
        }
        guard !candidates.isEmpty else { return .failure(.format) }
        candidates.sort { $0.distance < $1.distance }
        var failure = QRDecodeFailure.errorCorrection
        for format in candidates {
            switch decode(modules, version: version, level: format.level, mask: format.mask) {
            case .success(var decoded):
                decoded.formatDistance = format.distance
                return .success(decoded)
            case .failure(let f):
                failure = f
            }
        }
        return .failure(failure)
    }

    /// Erasures tried on a block that errors alone cannot correct: a few, then up to what the
    /// capacity less two check codewords allows.
    static func erasureCounts(limit: Int) -> [Int] {
        let most = 2 * (limit - 1)
        guard most >= 2 else { return [] }
        return Array(Set([most / 3, 2 * most / 3, most].filter { $0 >= 1 })).sorted()
    }

    static func decode(_ modules: QRModules, version: Int, level: QRErrorCorrection, mask: Int) -> Result<DecodedQR, QRDecodeFailure> {
        let layout = QRSpec.layout(version: version)
        let size = layout.size
        // Codewords in placement order, unmasked.
        let total = layout.totalCodewords
        var codewords = [UInt8](repeating: 0, count: total)
        var sureness = [Float](repeating: .infinity, count: total)
        modules.dark.withUnsafeBufferPointer { dark in
            layout.dataOrder.withUnsafeBufferPointer { order in
                for c in 0..<total {
                    var byte: UInt8 = 0
                    for b in 0..<8 {
                        let index = Int(order[c * 8 + b])
                        let x = index % size, y = index / size
                        let bit = dark[index] != QRSpec.maskCondition(mask, x, y)
                        byte = byte << 1 | (bit ? 1 : 0)
                        if let certainty = modules.certainty { sureness[c] = min(sureness[c], certainty[index]) }
                    }
                    codewords[c] = byte
                }
            }
        }
        // De-interleave: data codewords round-robin over the blocks (short blocks first), then the
        // check codewords the same way.
        let (lengths, ecc) = QRSpec.blocks(version: version, level)
        var blocks = lengths.map { [UInt8](repeating: 0, count: $0 + ecc) }
        var blockSureness = lengths.map { [Float](repeating: 0, count: $0 + ecc) }
        var next = 0
        for column in 0..<(lengths.max() ?? 0) {
            for b in blocks.indices where column < lengths[b] {
                blocks[b][column] = codewords[next]
                blockSureness[b][column] = sureness[next]
                next += 1
            }
        }
        for column in 0..<ecc {
            for b in blocks.indices {
                blocks[b][lengths[b] + column] = codewords[next]
                blockSureness[b][lengths[b] + column] = sureness[next]
                next += 1
            }
        }
        let limit = QRSpec.correctionLimit(version: version, level)
        var corrected = 0
        var worst = 0.0
        var data: [UInt8] = []
        data.reserveCapacity(lengths.reduce(0, +))
        for b in blocks.indices {
            var block = blocks[b]
            var errors = ReedSolomon.correct(&block, eccCount: ecc, limit: limit)
            if errors == nil, modules.certainty != nil {
                // Too many errors: the least sure codewords as erasures (one check codeword each
                // instead of two), keeping two check codewords spare so that a wrong correction shows.
                let order = blockSureness[b].indices.sorted { blockSureness[b][$0] < blockSureness[b][$1] }
                for count in Self.erasureCounts(limit: limit) {
                    var attempt = blocks[b]
                    if let r = ReedSolomon.correct(&attempt, eccCount: ecc, limit: limit - 1, erasures: Array(order.prefix(count))) {
                        block = attempt
                        errors = r.errors + r.erased
                        break
                    }
                }
            }
            guard let errors else { return .failure(.errorCorrection) }
            corrected += errors
            worst = max(worst, Double(errors) / Double(max(1, limit)))
            data += block[0..<lengths[b]]
        }
        guard let stream = QRBitstream(data, version: version) else { return .failure(.dataStream) }
        return .success(
            DecodedQR(
                version: version, level: level, mask: mask, stream: stream, errorsCorrected: corrected,
                worstBlockLoad: worst, formatDistance: 0, mirrored: false))
    }
}
