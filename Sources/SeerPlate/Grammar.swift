import Foundation
@_exported import SeerPlateText

/// One plate format: a name, the region it belongs to, and its character slots.
public struct PlateFormat: Sendable, Equatable {
    /// The format's name as listed in the grammar file, e.g. `br-mercosul` or `sk`.
    public var name: String
    /// The region the format belongs to.
    public var region: PlateRegion
    /// The format's prior, 0–1 (specific formats 1, catch-all ones lower).
    public var weight: Double
    /// The pattern as written in the grammar file.
    public var pattern: String
    /// Every fixed-length expansion of the pattern: one set of allowed characters per slot.
    var expansions: [[Set<Character>]]
    /// For each expansion, where the plate leaves a gap between its groups (a `-` in the
    /// pattern): the number of characters before each gap.
    var breaks: [[Int]] = []

    /// Whether `text` (upper case letters and digits) fits this format.
    public func matches(_ text: String) -> Bool {
        let chars = Array(text)
        return expansions.contains { slots in
            slots.count == chars.count && zip(slots, chars).allSatisfy { $0.contains($1) }
        }
    }
}

/// What the grammar check makes of a plate text (typed by a person or read from a photo).
public struct PlateNormalization: Codable, Sendable, Equatable {
    /// The text as given, upper-cased with spaces, hyphens and other separators removed.
    public var input: String
    /// The canonical form: the input itself when it fits a format, else its closest grammar-valid
    /// confusion variant (fewest swaps), else the input.
    public var canonical: String
    /// The format the canonical form matched (e.g. `br-mercosul`), or nil when none did.
    public var grammar: String?
    /// The region of that format, or nil.
    public var region: PlateRegion?
    /// Other grammar-valid texts reached by swapping confusable glyphs (O/0, I/1, B/8, …), fewest
    /// swaps first, at most two swaps and 16 variants; the canonical form is not repeated here.
    public var variants: [String]
}

/// Region grammars and confusion pairs, loaded from the grammar data file shipped with Seer.
public struct PlateGrammar: Sendable {
    /// All formats, in file order.
    public let formats: [PlateFormat]
    /// Confusable glyph pairs, both directions.
    let confusions: [Character: [Character]]

    /// The grammars shipped with Seer (`grammars.txt`).
    public static let standard: PlateGrammar = {
        // The file is part of the build; a parse failure is a programming error caught by tests,
        // so fall back to an empty grammar rather than stopping the process.
        (try? PlateGrammar(source: String(decoding: PackageResources.grammars_txt, as: UTF8.self)))
            ?? PlateGrammar(formats: [], confusions: PlateConfusions.partners)
    }()

    init(formats: [PlateFormat], confusions: [Character: [Character]]) {
        self.formats = formats
        self.confusions = confusions
    }

    /// A grammar line that could not be parsed.
    public struct ParseError: Error, CustomStringConvertible, Sendable {
        /// The 1-based line number.
        public var line: Int
        /// What is wrong with it.
        public var message: String
        /// `line N: message`.
        public var description: String { "grammar line \(line): \(message)" }
    }

    /// Parses grammar rules in the format of `grammars.txt`. Without `confuse` rules the grammar
    /// takes the standard pairs (``PlateConfusions``).
    public init(source: String) throws {
        var formats: [PlateFormat] = []
        var confusions: [Character: [Character]] = [:]
        for (index, raw) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let kind = fields.first else { continue }
            switch kind {
            case "plate":
                guard fields.count == 5, let region = PlateRegion(rawValue: fields[1]), let weight = Double(fields[3]) else {
                    throw ParseError(line: index + 1, message: "expected `plate REGION NAME WEIGHT PATTERN`")
                }
                let expanded = try Self.expand(fields[4], line: index + 1)
                formats.append(PlateFormat(
                    name: fields[2], region: region, weight: weight, pattern: fields[4], expansions: expanded.map(\.slots),
                    breaks: expanded.map(\.breaks)))
            case "confuse":
                guard fields.count == 3, fields[1].count == 1, fields[2].count == 1 else {
                    throw ParseError(line: index + 1, message: "expected `confuse A B`")
                }
                let a = Character(fields[1]), b = Character(fields[2])
                confusions[a, default: []].append(b)
                confusions[b, default: []].append(a)
            default:
                throw ParseError(line: index + 1, message: "unknown rule `\(kind)`")
            }
        }
        self.formats = formats
        self.confusions = confusions.isEmpty ? PlateConfusions.partners : confusions
    }

    static let letters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    static let digits = Set("0123456789")

    /// Expands a pattern into fixed-length slot lists, each with the places of its gaps (`-`).
    static func expand(_ pattern: String, line: Int) throws -> [(slots: [Set<Character>], breaks: [Int])] {
        // An item with an empty set is a gap between groups.
        var items: [(Set<Character>, Int, Int)] = []
        var chars = Array(pattern)[...]
        while let c = chars.popFirst() {
            switch c {
            case "-":
                guard let previous = items.last, !previous.0.isEmpty, !chars.isEmpty else {
                    throw ParseError(line: line, message: "`-` must stand between two groups")
                }
                items.append((Set(), 1, 1))
            case "A": items.append((letters, 1, 1))
            case "9": items.append((digits, 1, 1))
            case "*": items.append((letters.union(digits), 1, 1))
            case "[":
                guard let end = chars.firstIndex(of: "]") else { throw ParseError(line: line, message: "unclosed [") }
                items.append((Set(chars[chars.startIndex..<end]), 1, 1))
                chars = chars[(end + 1)...]
            case "{":
                guard let end = chars.firstIndex(of: "}"), let previous = items.last, !previous.0.isEmpty else {
                    throw ParseError(line: line, message: "bad {m,n}")
                }
                let bounds = chars[chars.startIndex..<end].split(separator: ",").compactMap { Int(String($0)) }
                chars = chars[(end + 1)...]
                guard bounds.count == 1 || bounds.count == 2 else { throw ParseError(line: line, message: "bad {m,n}") }
                items[items.count - 1].1 = bounds[0]
                items[items.count - 1].2 = bounds.last!
            default:
                throw ParseError(line: line, message: "unexpected `\(c)` in pattern")
            }
        }
        var result: [(slots: [Set<Character>], breaks: [Int])] = [([], [])]
        for (set, low, high) in items {
            if set.isEmpty {
                result = result.map { ($0.slots, $0.breaks + [$0.slots.count]) }
                continue
            }
            var next: [(slots: [Set<Character>], breaks: [Int])] = []
            for prefix in result {
                for n in low...max(low, high) { next.append((prefix.slots + Array(repeating: set, count: n), prefix.breaks)) }
            }
            result = next
        }
        // One expansion per distinct slot list and gaps, shortest first.
        func key(_ e: (slots: [Set<Character>], breaks: [Int])) -> [String] { e.slots.map { String($0.sorted()) } + ["-"] + e.breaks.map(String.init) }
        var seen = Set<[String]>()
        return result.filter { seen.insert(key($0)).inserted }
            .sorted { $0.slots.count != $1.slots.count ? $0.slots.count < $1.slots.count : key($0).lexicographicallyPrecedes(key($1)) }
    }

    /// Formats of `region`, or all formats when `region` is nil.
    public func formats(for region: PlateRegion?) -> [PlateFormat] {
        guard let region else { return formats }
        return formats.filter { $0.region == region }
    }

    /// The canonical plate form of `text` (``PlateText/canonical(_:)``): A–Z and 0–9 only.
    public static func clean(_ text: String) -> String {
        PlateText.canonical(text)
    }

    /// Checks a plate text against the formats of `region` (all regions when nil): returns its
    /// canonical form, the format it matched and the grammar-valid confusion variants. This is
    /// what manual entry and plate look-ups use.
    public func normalize(_ text: String, region: PlateRegion?) -> PlateNormalization {
        let input = Self.clean(text)
        let candidates = formats(for: region).filter { $0.weight >= 0.6 }.sorted { $0.weight > $1.weight }
        // Variants by number of swaps, each slot only swapped to satisfy a format.
        var found: [(text: String, swaps: Double, format: PlateFormat)] = []
        let chars = Array(input)
        for format in candidates {
            for slots in format.expansions where slots.count == chars.count {
                var options: [[(Character, Double)]] = []
                for (slot, c) in zip(slots, chars) {
                    var opts: [(Character, Double)] = []
                    if slot.contains(c) { opts.append((c, 0)) }
                    // Swap only where the slot demands the other kind of glyph.
                    if !slot.contains(c) {
                        for (rank, alt) in (confusions[c] ?? []).enumerated() where slot.contains(alt) { opts.append((alt, 1 + 0.01 * Double(rank))) }
                    }
                    if opts.isEmpty { options = []; break }
                    options.append(opts)
                }
                guard options.count == chars.count else { continue }
                var partial: [(String, Double)] = [("", 0)]
                for opts in options {
                    partial = partial.flatMap { p in opts.map { (p.0 + String($0.0), p.1 + $0.1) } }
                    if partial.count > 256 { partial = Array(partial.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.prefix(256)) }
                }
                for (t, s) in partial where s < 2.5 { found.append((t, s, format)) }
            }
        }
        found.sort { ($0.swaps, -$0.format.weight, $0.text) < ($1.swaps, -$1.format.weight, $1.text) }
        var seen = Set<String>()
        var unique: [(text: String, swaps: Double, format: PlateFormat)] = []
        for f in found where seen.insert(f.text).inserted { unique.append(f) }
        guard let best = unique.first else {
            return PlateNormalization(input: input, canonical: input, grammar: nil, region: nil, variants: [])
        }
        return PlateNormalization(
            input: input, canonical: best.text, grammar: best.format.name, region: best.format.region,
            variants: Array(unique.dropFirst().prefix(16).map(\.text)))
    }
}
