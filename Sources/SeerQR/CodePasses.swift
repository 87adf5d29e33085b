/// A version of the photo a pass works on. Coordinates of every level map back to the work image
/// (the image ``CodeReader/read(_:scaleX:scaleY:)`` was given).
public enum CodeLevel: String, Sendable, Hashable, CaseIterable, Codable {
    /// The work image reduced by an integer factor to a long side of about 1024 pixels (the work
    /// image itself when it is that small).
    case reduced
    /// The work image as given.
    case full
    /// The reduced level halved again: close-ups whose modules are too big for the binarisation window.
    case coarse
    /// The work image enlarged 2× (4× below 300 pixels), for images up to 800 pixels: tiny images and
    /// codes of one or two pixels a module.
    case enlarged
    /// The photo decoded at twice the work image's resolution (when the work image is a reduced
    /// decoding), cropped around finder patterns too small to read at the work resolution. Locator only.
    case finer
}

/// How a locator pass decides dark from light before it looks for finder patterns.
public enum CodeBinarization: String, Sendable, Hashable, CaseIterable, Codable {
    /// Darker than the local mean over a window of a twelfth of the long side.
    case local
    /// As `local` with a window of a sixth of the long side (big modules).
    case localWide
    /// As `local` with a window of a twenty-fourth of the long side (small modules, strong gradients).
    case localNarrow
    /// Local mean after a 3×3 median filter (textured or speckled modules).
    case smoothed
    /// One threshold for the whole level (Otsu's method): codes whose texture misleads local means.
    case global
    /// `local`, dark and light swapped: light-on-dark codes.
    case inverted
    /// `global` with finder patterns of looser shape (outlined or textured modules).
    case globalLoose
}

/// What a zbar pass scans.
public enum CodeFilter: String, Sendable, Hashable, CaseIterable, Codable {
    /// The grey level as it is.
    case plain
    /// Locally binarised.
    case binarized
    /// Grey levels inverted.
    case inverted
    /// A 3×3 median filter.
    case smoothed
    /// Contrast stretched between the 1st and 99th percentiles.
    case stretched
    /// One threshold for the whole level (Otsu's method).
    case global
}

/// One pass of the code reader. A preset is an ordered table of passes with the condition each
/// runs under; the order comes from measuring what each pass adds (codes gained per millisecond on
/// the project's benchmark photos, `Benchmarks/codes/passes.py`).
public enum CodePass: Sendable, Hashable, CustomStringConvertible {
    /// Finder patterns found on a binarised level; each candidate code's grid is fitted and read by
    /// Seer's own QR decoder from the work image.
    case locator(CodeLevel, CodeBinarization)
    /// zbar over a whole level (linear codes; QR Codes the locator could not place). Every QR Code
    /// zbar reads is read again by Seer's decoder on zbar's corners; when the two disagree neither is kept.
    case zbar(CodeLevel, CodeFilter)

    /// `locator/reduced/local`, `zbar/full/plain`, …
    public var description: String {
        switch self {
        case .locator(let l, let b): "locator/\(l.rawValue)/\(b.rawValue)"
        case .zbar(let l, let f): "zbar/\(l.rawValue)/\(f.rawValue)"
        }
    }

    /// Parses ``description``.
    public init?(_ text: String) {
        let parts = text.split(separator: "/").map(String.init)
        guard parts.count == 3, let level = CodeLevel(rawValue: parts[1]) else { return nil }
        switch parts[0] {
        case "locator":
            guard let b = CodeBinarization(rawValue: parts[2]) else { return nil }
            self = .locator(level, b)
        case "zbar":
            guard let f = CodeFilter(rawValue: parts[2]) else { return nil }
            self = .zbar(level, f)
        default:
            return nil
        }
    }

    /// Every pass, for measuring.
    public static let all: [CodePass] =
        CodeLevel.allCases.flatMap { l in CodeBinarization.allCases.map { CodePass.locator(l, $0) } }
        + CodeLevel.allCases.flatMap { l in CodeFilter.allCases.map { CodePass.zbar(l, $0) } }
}

/// When a pass in a preset's table runs.
public enum PassCondition: String, Sendable, Hashable, Codable {
    /// Always.
    case always
    /// While the photo is not explained: nothing read yet, or finder patterns left that no code read
    /// explains, or codes read whose modules suggest smaller ones may be missed at this level.
    case unexplained
    /// Only while nothing has been read.
    case nothingRead
}

extension CodeReader.Preset {
    /// The QR passes every preset opens with: the locator with the local threshold on the reduced
    /// level, then on the full and finer levels while the photo is unexplained.
    static let openingQRPasses: [(pass: CodePass, when: PassCondition)] = [
        (.locator(.reduced, .local), .always),
        (.locator(.full, .local), .unexplained),
        (.locator(.finer, .local), .unexplained),
    ]

    /// The preset's table of QR passes, in order.
    public var qrPasses: [(pass: CodePass, when: PassCondition)] {
        switch self {
        case .fast:
            Self.openingQRPasses + [
                (.locator(.reduced, .global), .nothingRead),
                (.locator(.coarse, .localWide), .unexplained),
                (.locator(.reduced, .localNarrow), .unexplained),
                (.locator(.reduced, .inverted), .nothingRead),
            ]
        case .balanced:
            // Fast's passes, then zbar's and the enlarged level's while nothing is read.
            Self.fast.qrPasses + [
                (.zbar(.coarse, .plain), .nothingRead),
                (.zbar(.reduced, .binarized), .nothingRead),
                (.locator(.enlarged, .global), .nothingRead),
                (.zbar(.reduced, .smoothed), .nothingRead),
            ]
        case .thorough:
            Self.openingQRPasses + [
                (.locator(.reduced, .global), .unexplained),
                (.locator(.full, .global), .unexplained),
                (.locator(.coarse, .localWide), .unexplained),
                (.locator(.reduced, .localNarrow), .unexplained),
                (.locator(.finer, .global), .unexplained),
                (.zbar(.coarse, .plain), .nothingRead),
                (.zbar(.reduced, .binarized), .unexplained),
                (.locator(.coarse, .local), .nothingRead),
                (.zbar(.reduced, .stretched), .unexplained),
                (.zbar(.full, .plain), .nothingRead),
                (.locator(.enlarged, .global), .nothingRead),
                (.zbar(.reduced, .smoothed), .nothingRead),
                (.zbar(.enlarged, .plain), .unexplained),
                (.locator(.reduced, .inverted), .nothingRead),
            ]
        }
    }
}

extension CodeReader.Preset {
    /// The largest photo (in pixels) whose enlarged level the linear table's zbar scans read, or
    /// `nil` for any size the level is made for. At balanced 2¹⁷ pixels (about 360 × 360): every 1-D
    /// code of the benchmark photos that only the enlarged scans read fills a photo of at most
    /// 85 000 pixels, while on a 480 × 480 photo of a carpet or a fabric each enlarged scan costs
    /// about 70 ms (four times a scan of the photo) and reads nothing.
    public var enlargedScanPixels: Int? {
        switch self {
        case .fast, .balanced: 1 << 17
        case .thorough: nil
        }
    }

    /// The preset's table of passes for linear codes (when any linear symbology is asked for).
    public var linearPasses: [(pass: CodePass, when: PassCondition)] {
        switch self {
        case .fast:
            [(.zbar(.reduced, .plain), .always), (.zbar(.reduced, .global), .nothingRead)]
        case .balanced:
            [
                (.zbar(.reduced, .plain), .always),
                (.zbar(.full, .plain), .always),
                (.zbar(.reduced, .global), .nothingRead),
                (.zbar(.enlarged, .plain), .nothingRead),
                (.zbar(.enlarged, .global), .nothingRead),
            ]
        case .thorough:
            [
                (.zbar(.reduced, .plain), .always),
                (.zbar(.full, .plain), .always),
                (.zbar(.reduced, .global), .always),
                (.zbar(.reduced, .binarized), .always),
                (.zbar(.full, .stretched), .always),
                (.zbar(.enlarged, .plain), .nothingRead),
                (.zbar(.enlarged, .global), .nothingRead),
                (.zbar(.full, .smoothed), .nothingRead),
            ]
        }
    }
}
