import Foundation

/// Plate text as Seer stores and compares it, and the check every typed plate goes through.
///
/// The canonical form holds only A–Z and 0–9: separators (spaces, hyphens, dots) are dropped, letters
/// are upper-cased, and Latin letters with diacritics are taken at their base letter (`Ü` → `U`, as a
/// plate reader sees them). ``validate(_:)`` refuses, with the reason, what cannot be a plate:
/// letters of other scripts that look like Latin ones (Cyrillic `А`, Greek `Β`), emoji, symbols,
/// control characters, and texts that are too short or too long.
public enum PlateText {
    /// Fewest characters in a canonical plate.
    public static let minimumLength = 2
    /// Most characters in a canonical plate.
    public static let maximumLength = 10
    /// Most characters accepted as typed (separators included).
    public static let maximumInputLength = 32

    /// Characters that separate groups on a plate and are dropped.
    static let separators: Set<Unicode.Scalar> = [" ", "-", ".", "·", "\u{2010}", "\u{2011}", "\u{2013}", "\u{2014}", "\u{00A0}", "\t", "_", "/"]

    /// The canonical form of `text`: upper-case A–Z and 0–9 only, everything else dropped.
    ///
    /// This is the one canonical form: registered plates, typed plates and plates read from photos
    /// are all compared in it. It never fails; use ``validate(_:)`` for text a person typed.
    public static func canonical(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if let base = latinBase(scalar) { out.append(base) }
        }
        return String(out)
    }

    /// The A–Z / 0–9 character a scalar stands for on a plate, or nil.
    static func latinBase(_ scalar: Unicode.Scalar) -> Unicode.Scalar? {
        switch scalar.value {
        case 0x30...0x39, 0x41...0x5A: return scalar
        case 0x61...0x7A: return Unicode.Scalar(scalar.value - 0x20)
        default: break
        }
        // Latin letters with diacritics: the first scalar of the canonical decomposition.
        guard scalar.properties.isAlphabetic, isLatin(scalar),
            let first = String(Character(scalar)).decomposedStringWithCanonicalMapping.unicodeScalars.first, first != scalar
        else { return nil }
        return latinBase(first)
    }

    static func isLatin(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00C0...0x024F, 0x1E00...0x1EFF: return true
        default: return false
        }
    }

    /// Checks a typed plate and returns its canonical form.
    ///
    /// - Throws: ``PlateTextError`` naming the first offending character and why (another script's
    ///   look-alike, an emoji, a symbol, a control character), or the length.
    public static func validate(_ text: String) throws(PlateTextError) -> String {
        if text.unicodeScalars.count > maximumInputLength {
            throw PlateTextError(
                .tooLong, input: text,
                message: "A plate is at most \(maximumInputLength) characters as typed; this has \(text.unicodeScalars.count).")
        }
        for scalar in text.unicodeScalars where latinBase(scalar) == nil && !separators.contains(scalar) {
            throw refusal(scalar, in: text)
        }
        let plate = canonical(text)
        if plate.isEmpty {
            throw PlateTextError(.empty, input: text, message: "The plate has no letters or digits.")
        }
        if plate.count < minimumLength {
            throw PlateTextError(.tooShort, input: text, message: "A plate has at least \(minimumLength) letters and digits; '\(plate)' has \(plate.count).")
        }
        if plate.count > maximumLength {
            throw PlateTextError(.tooLong, input: text, message: "A plate has at most \(maximumLength) letters and digits; '\(plate)' has \(plate.count).")
        }
        return plate
    }

    static func refusal(_ scalar: Unicode.Scalar, in text: String) -> PlateTextError {
        let name = "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
        let shown = "'\(Character(scalar))' (\(name))"
        let properties = scalar.properties
        if properties.generalCategory == .control || properties.generalCategory == .format {
            return PlateTextError(
                .controlCharacter, input: text, message: "The plate contains an invisible control character (\(name)).")
        }
        if properties.isEmojiPresentation || (properties.isEmoji && scalar.value > 0xFF) {
            return PlateTextError(.emoji, input: text, message: "The plate contains an emoji, \(shown): plates hold only A–Z and 0–9.")
        }
        if let latin = lookAlikes[scalar] {
            let script = (0x0370...0x03FF).contains(scalar.value) ? "Greek" : "Cyrillic"
            return PlateTextError(
                .lookAlike, input: text,
                message: "The plate contains the \(script) letter \(shown), which looks like the Latin '\(latin)': type it with a Latin keyboard.")
        }
        if properties.isAlphabetic || properties.numericType != nil {
            return PlateTextError(
                .notLatin, input: text, message: "The plate contains \(shown), which is not one of the letters A–Z or digits 0–9 plates hold.")
        }
        return PlateTextError(.symbol, input: text, message: "The plate contains the symbol \(shown): plates hold only A–Z and 0–9 (spaces and hyphens are ignored).")
    }

    /// Cyrillic and Greek capitals and small letters drawn like Latin ones.
    static let lookAlikes: [Unicode.Scalar: Character] = {
        var table: [Unicode.Scalar: Character] = [:]
        let pairs: [(String, String)] = [
            // Cyrillic
            ("АВЕЅІЈКМНОРСТУХаеѕіјорсух", "ABESIJKMHOPCTYXAESIJOPCYX"),
            // Greek
            ("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧοκνρτυχ", "ABEZHIKMNOPTYXOKVPTYX"),
        ]
        for (foreign, latin) in pairs {
            for (f, l) in zip(foreign.unicodeScalars, latin) { table[f] = l }
        }
        return table
    }()
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// Why a typed plate was refused.
public struct PlateTextError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of problem.
    public enum Code: String, Sendable, Codable {
        /// No letters or digits at all.
        case empty
        /// Fewer than ``PlateText/minimumLength`` letters and digits.
        case tooShort
        /// More than ``PlateText/maximumLength`` letters and digits (or a very long input).
        case tooLong
        /// A Cyrillic or Greek letter that looks like a Latin one.
        case lookAlike
        /// An emoji.
        case emoji
        /// A letter or digit of another script.
        case notLatin
        /// Punctuation or a symbol other than a separator.
        case symbol
        /// An invisible control or format character.
        case controlCharacter
    }

    /// The kind of problem.
    public var code: Code
    /// The plate as given.
    public var input: String
    /// What is wrong, in words that say why.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, input: String, message: String) {
        self.code = code
        self.input = input
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// The one table of glyphs that plate readers and people confuse, letter with digit, likeliest first.
///
/// Plate grammars swap a glyph for its partner only where a format demands the other kind (a digit
/// slot cannot hold `B`: it was an `8`); owner look-ups try the same swaps as variants.
public enum PlateConfusions {
    /// Confusable pairs, likeliest first.
    public static let pairs: [(Character, Character)] = [
        ("O", "0"), ("D", "0"), ("Q", "0"), ("U", "0"), ("I", "1"), ("L", "1"), ("T", "1"), ("J", "1"), ("Z", "2"), ("Z", "7"),
        ("B", "8"), ("S", "5"), ("G", "6"), ("B", "3"), ("A", "4"), ("T", "7"), ("G", "9"),
    ]

    /// Each glyph's partners, both directions, likeliest first.
    public static let partners: [Character: [Character]] = table(pairs)

    /// The partner table of a list of pairs.
    public static func table(_ pairs: [(Character, Character)]) -> [Character: [Character]] {
        var table: [Character: [Character]] = [:]
        for (a, b) in pairs {
            table[a, default: []].append(b)
            table[b, default: []].append(a)
        }
        return table
    }
}
