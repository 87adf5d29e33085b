/// One character of a plate reading.
public struct PlateCharacter: Codable, Sendable, Equatable {
    /// Another character the reader considered for this position.
    public struct Alternative: Codable, Sendable, Equatable {
        /// The character.
        public var character: String
        /// Its score, 0–1, on the same scale as the chosen character's confidence.
        public var score: Double
    }

    /// The chosen character (one of A–Z, 0–9).
    public var character: String
    /// How sure the reader is of it, 0–1 (the OCR's probability for it, lowered when a grammar
    /// slot forced a confusion swap such as O→0).
    public var confidence: Double
    /// Other characters for this position, best first.
    public var alternatives: [Alternative]
}

/// A plate text the reader considered, with its score.
public struct PlateCandidate: Codable, Sendable, Equatable {
    /// The plate text (A–Z, 0–9).
    public var text: String
    /// Its score, 0–1: the geometric mean of its characters' probabilities times the prior of the
    /// format it matched (lower when it matched none).
    public var score: Double
    /// The format it is labelled with (e.g. `br`, `sk`), or nil: it fits none, or it fits several
    /// equally (then ``formats``).
    public var grammar: String?
    /// The formats it fits equally, sorted, when nothing in the photo tells them apart; nil
    /// otherwise (see ``PlateReading/formats``).
    public var formats: [String]? = nil

    /// ``grammar``, or the tied ``formats`` joined by `|`, or nil.
    public var label: String? { grammar ?? formats?.joined(separator: "|") }
}

/// A licence plate found and read in a photo.
public struct PlateReading: Codable, Sendable, Equatable {
    /// The best reading: upper-case letters and digits, no separators.
    public var text: String
    /// How far the reading can be trusted, 0–1: the best candidate's score times its margin over
    /// the runner-up (`score × best / (best + second)` doubled, capped at the score). Readings
    /// above 0.6 are usually exact; below 0.3 show the candidates to the user.
    public var confidence: Double
    /// The region of the format the text is labelled with (or the one region the tied
    /// ``formats`` share), or nil when it matched none or formats of several regions tie.
    public var region: PlateRegion?
    /// The name of the format the text is labelled with (e.g. `br-mercosul`), or nil: it matched
    /// none, or it fits several formats equally and nothing in the photo tells them apart.
    /// The photo's evidence decides: a format whose gaps between groups are where the plate's are
    /// (`AB-123-CD`: French; `M AB 1234`: German) is preferred to one that only fits the letters
    /// and digits (docs/plates.md, "Labels").
    public var grammar: String?
    /// When the text fits several formats equally and nothing in the photo separates them (a US
    /// `KVT 4821` is also an old Brazilian plate; an `AB 123CD` is Slovak or Italian), their
    /// names, sorted, and ``grammar`` is nil; nil otherwise (absent from JSON). A region given to
    /// the reader narrows the formats to its own.
    public var formats: [String]? = nil
    /// The plate's corners `[x, y]` — top-left, top-right, bottom-right, bottom-left — in the
    /// displayed (orientation-applied) full-size photo's pixels.
    public var corners: [[Double]]
    /// The axis-aligned box around the corners: `[x, y, width, height]`, same coordinates.
    public var box: [Double]
    /// The characters of `text`, with confidences and alternatives.
    public var characters: [PlateCharacter]
    /// The top candidate texts, best first (the first is `text`).
    public var candidates: [PlateCandidate]

    /// ``grammar``, or the tied ``formats`` joined by `|` (`br|us-7a`), or nil.
    public var label: String? { grammar ?? formats?.joined(separator: "|") }
}
