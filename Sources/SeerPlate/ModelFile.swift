/// Why a plate model's weight file (`.spr`, `.sgc`) was refused.
public enum PlateModelError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes do not start with the format's magic.
    case notAModel(expected: String)
    /// A file of an earlier version of the format (`SPR1`, `SGC1`: Float32 weights), which this
    /// version no longer reads.
    case oldVersion(found: String, expected: String)
    /// A shape field out of the range the format allows.
    case badShape(field: String, value: Int)
    /// The file's length is not the one its shape gives.
    case wrongSize(expected: Int, actual: Int)
    /// A layer (counted from 0) with a scale that is negative or not finite, or a bias that is not finite.
    case badLayer(Int)

    public var description: String {
        switch self {
        case .notAModel(let expected): "not a plate model file (no \(expected) magic)"
        case .oldVersion(let found, let expected):
            "a \(found) model file (Float32 weights); this version reads \(expected): convert it with scripts/plate-ocr/modelfile.py"
        case .badShape(let field, let value): "the model's \(field) is \(value), outside the format's range"
        case .wrongSize(let expected, let actual): "the model's shape needs \(expected) bytes, the file has \(actual)"
        case .badLayer(let layer): "layer \(layer) of the model has a negative or non-finite scale or a non-finite bias"
        }
    }
}

/// The bytes of a model file the training scripts write (`scripts/plate-ocr/modelfile.py`): a
/// four-byte magic, little-endian Int32 shape fields and the class characters, then per layer one
/// Float32 scale per output channel, the weights as Int8 (output channel by output channel, each
/// weight its Int8 times its channel's scale) and one Float32 bias per output channel. Read in
/// order; the weights are expanded to Float once, here.
struct ModelBytes {
    private let data: [UInt8]
    private var offset: Int

    /// The file's shape as layers: output channels and the weights each output reads.
    typealias Shape = [(outputs: Int, inputs: Int)]

    /// Checks the magic: `family` followed by `2`. An earlier version's file is refused by name.
    init(_ bytes: [UInt8], family: String) throws(PlateModelError) {
        let magic = family + "2"
        guard bytes.count >= 4, bytes[0..<3].elementsEqual(family.utf8) else { throw .notAModel(expected: magic) }
        guard bytes[3] == UInt8(ascii: "2") else {
            guard bytes[3] == UInt8(ascii: "1") else { throw .notAModel(expected: magic) }
            throw .oldVersion(found: family + "1", expected: magic)
        }
        data = bytes
        offset = 4
    }

    private func word(_ o: Int) -> UInt32 {
        UInt32(data[o]) | UInt32(data[o + 1]) << 8 | UInt32(data[o + 2]) << 16 | UInt32(data[o + 3]) << 24
    }

    /// The next little-endian Int32 as a shape field, which must lie in `range`.
    mutating func field(_ name: String, in range: ClosedRange<Int>) throws(PlateModelError) -> Int {
        guard offset + 4 <= data.count else { throw .wrongSize(expected: offset + 4, actual: data.count) }
        let value = Int(Int32(bitPattern: word(offset)))
        offset += 4
        guard range.contains(value) else { throw .badShape(field: name, value: value) }
        return value
    }

    /// The next `n` bytes.
    mutating func bytes(_ n: Int) throws(PlateModelError) -> ArraySlice<UInt8> {
        guard offset + n <= data.count else { throw .wrongSize(expected: offset + n, actual: data.count) }
        defer { offset += n }
        return data[offset..<(offset + n)]
    }

    /// The rest of the file as layers of `shape`: (weights, output channel by output channel, and
    /// biases) each. The file must be exactly as long as the shape says.
    mutating func layers(_ shape: Shape) throws(PlateModelError) -> [(weights: [Float], bias: [Float])] {
        let expected = offset + shape.reduce(0) { $0 + $1.outputs * (8 + $1.inputs) }
        guard expected == data.count else { throw .wrongSize(expected: expected, actual: data.count) }
        var layers: [(weights: [Float], bias: [Float])] = []
        for (index, layer) in shape.enumerated() {
            let scales = floats(layer.outputs)
            var weights = [Float](repeating: 0, count: layer.outputs * layer.inputs)
            for o in 0..<layer.outputs {
                let scale = scales[o]
                for i in 0..<layer.inputs {
                    weights[o * layer.inputs + i] = Float(Int8(bitPattern: data[offset + i])) * scale
                }
                offset += layer.inputs
            }
            let bias = floats(layer.outputs)
            guard scales.allSatisfy({ $0.isFinite && $0 >= 0 }), bias.allSatisfy(\.isFinite) else { throw .badLayer(index) }
            layers.append((weights, bias))
        }
        return layers
    }

    /// The next `n` little-endian Float32 values (the length was checked by ``layers(_:)``).
    private mutating func floats(_ n: Int) -> [Float] {
        defer { offset += 4 * n }
        return (0..<n).map { Float(bitPattern: word(offset + 4 * $0)) }
    }
}
