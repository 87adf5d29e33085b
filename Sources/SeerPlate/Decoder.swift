import Foundation

/// One position of an OCR reading: characters with probabilities, best first.
struct Position: Sendable {
    var options: [(Character, Double)]
}

/// Best-first search for plate texts that fit a grammar, from per-position character scores.
struct CandidateSearch {
    let grammar: PlateGrammar

    struct Scored {
        var text: String
        var score: Double
        var format: PlateFormat?
        var perChar: [Double]
        /// The position each character was read from (positions left out at either end are
        /// skipped), so evidence about a character is taken from its own glyph.
        var indices: [Int]
    }

    /// Score given to a confusion swap relative to the glyph it replaces.
    static let swapFactor = 0.8
    /// Score lost per glyph dropped from either end (frame edges, bolts, stray marks).
    static let dropFactor = 0.45
    /// Prior of a reading that matches no format when a region was asked for.
    static let unmatchedFactor = 0.35

    /// A reading's score is raised by this (to at most 1) when the row's wide gaps fall exactly
    /// where its format has gaps between groups: the format explains the row's layout.
    static let gapFactor = 1.15

    /// The row's wide gaps that fall inside a reading of `count` characters starting at position
    /// `lead`, as the number of the reading's characters before each: a gap `g` lies between
    /// positions `g` and `g + 1`. Gaps beside a dropped end glyph are no part of the plate.
    static func breaks(_ gaps: [Int], lead: Int, count: Int) -> [Int] {
        gaps.map { $0 + 1 - lead }.filter { $0 > 0 && $0 < count }.sorted()
    }

    /// Candidate texts for `positions`, best first. `gaps`: the row's wide gaps, each between
    /// positions `g` and `g + 1` (a separator, an emblem or a space between groups; see
    /// ``GlyphRow/gaps``).
    func search(_ positions: [Position], region: PlateRegion?, limit: Int, gaps: [Int] = []) -> [Scored] {
        var all: [Scored] = []
        let n = positions.count
        guard n > 0 else { return [] }
        for format in grammar.formats(for: region) {
            for (e, slots) in format.expansions.enumerated() where slots.count <= n && slots.count >= n - 2 {
                let extra = n - slots.count
                for lead in 0...extra {
                    let window = Array(positions[lead..<(lead + slots.count)])
                    var penalty = pow(Self.dropFactor, Double(extra))
                    let seen = Self.breaks(gaps, lead: lead, count: slots.count)
                    if !seen.isEmpty, format.breaks.indices.contains(e), format.breaks[e] == seen { penalty *= Self.gapFactor }
                    let indices = Array(lead..<(lead + slots.count))
                    all += kBest(window, slots: slots, limit: limit).map {
                        Scored(
                            text: $0.0, score: min(1, pow($0.1, 1 / Double(slots.count)) * format.weight * penalty), format: format, perChar: $0.2,
                            indices: indices)
                    }
                }
            }
        }
        // The raw reading, matching no format.
        let any = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let raw = kBest(positions, slots: Array(repeating: any, count: n), limit: limit)
        all += raw.map {
            Scored(
                text: $0.0, score: pow($0.1, 1 / Double(n)) * (region == nil ? 0.6 : Self.unmatchedFactor), format: nil, perChar: $0.2,
                indices: Array(0..<n))
        }
        all.sort { $0.score != $1.score ? $0.score > $1.score : $0.text < $1.text }
        // O and 0 share one glyph on many plates (most US states among them), so the classifiers'
        // choice between them is weak evidence: the best reading's twin with one O/0 swapped, when
        // it fits a format of the region, is offered right behind it, at a swap's cost.
        if let top = all.first {
            let chars = Array(top.text)
            for i in chars.indices where chars[i] == "O" || chars[i] == "0" {
                var twin = chars
                twin[i] = chars[i] == "O" ? "0" : "O"
                let text = String(twin)
                let score = top.score * Self.swapFactor
                var format = top.format
                if let own = top.format, !own.matches(text) {
                    // Through another format only if the region deems it nearly as likely (US
                    // `general`, not Europe's catch-alls).
                    guard let other = grammar.formats(for: region).filter({ $0.matches(text) }).max(by: { $0.weight < $1.weight }),
                        other.weight >= 0.75 * own.weight else { continue }
                    format = other
                }
                if let existing = all.firstIndex(where: { $0.text == text }), all[existing].score >= score { continue }
                var perChar = top.perChar
                if perChar.indices.contains(i) { perChar[i] *= Self.swapFactor }
                all.append(Scored(text: text, score: score, format: format, perChar: perChar, indices: top.indices))
            }
            all.sort { $0.score != $1.score ? $0.score > $1.score : $0.text < $1.text }
        }
        var seen = Set<String>()
        var out: [Scored] = []
        for s in all where seen.insert(s.text).inserted {
            out.append(s)
            if out.count == limit { break }
        }
        return out
    }

    /// The `limit` best texts over independent slots, each restricted to its allowed set (confusion
    /// swaps allowed at a cost).
    func kBest(_ positions: [Position], slots: [Set<Character>], limit: Int) -> [(String, Double, [Double])] {
        var lists: [[(Character, Double)]] = []
        // Scores are compared as geometric means over the slots: a swap must cost `swapFactor` of
        // the whole reading, not of one slot.
        let swapCost = pow(Self.swapFactor, Double(slots.count))
        for (position, slot) in zip(positions, slots) {
            var best: [Character: Double] = [:]
            for (c, p) in position.options {
                if slot.contains(c) { best[c] = max(best[c] ?? 0, p) }
                // Earlier pairs in the grammar file are the likelier confusions.
                // Swapped only where the slot cannot take the glyph read.
                for (rank, alt) in (grammar.confusions[c] ?? []).enumerated() where !slot.contains(c) && slot.contains(alt) {
                    best[alt] = max(best[alt] ?? 0, p * swapCost * pow(0.97, Double(rank)))
                }
            }
            let list = best.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(4).map { ($0.key, max($0.value, 1e-9)) }
            if list.isEmpty { return [] }
            lists.append(list)
        }
        // Best-first over index vectors.
        struct Node { var index: [Int]; var score: Double }
        var frontier = [Node(index: Array(repeating: 0, count: lists.count), score: lists.reduce(1) { $0 * $1[0].1 })]
        var seen = Set<[Int]>()
        var out: [(String, Double, [Double])] = []
        while !frontier.isEmpty, out.count < limit {
            let i = frontier.indices.max { frontier[$0].score < frontier[$1].score }!
            let node = frontier.remove(at: i)
            guard seen.insert(node.index).inserted else { continue }
            out.append((String(zip(lists, node.index).map { $0[$1].0 }), node.score, zip(lists, node.index).map { $0[$1].1 }))
            for k in 0..<lists.count where node.index[k] + 1 < lists[k].count {
                var next = node.index
                next[k] += 1
                frontier.append(Node(index: next, score: node.score / lists[k][node.index[k]].1 * lists[k][next[k]].1))
            }
        }
        return out
    }
}

/// The format a reading is labelled with: the one its text fits that the photo's evidence and the
/// grammar single out, or, when several fit it equally and nothing in the photo tells them apart,
/// all of them (a tie is reported as such, not guessed).
struct FormatLabel: Equatable {
    /// The format decided on, or nil (no format fits, or a tie).
    var format: PlateFormat?
    /// The formats tied, two or more, sorted by name; empty when decided or none fits.
    var tied: [PlateFormat] = []

    /// The region of the format decided on, or the one region all tied formats share.
    var region: PlateRegion? {
        if let format { return format.region }
        guard let first = tied.first, tied.allSatisfy({ $0.region == first.region }) else { return nil }
        return first.region
    }
}

extension CandidateSearch {
    /// A format of another region is a rival of the best one when it explains the row's gaps as
    /// well and weighs at least this share of it: weights rank a region's own formats (specific
    /// ones 0.8–1, catch-alls less), a tenth between two regions' specific formats is no evidence.
    static let rivalShare = 0.85

    /// How well a format explains the row's wide gaps: 2 when its gaps between groups are exactly
    /// the row's, 1 when every gap of the row is one of its gaps but it has more (a narrow space
    /// between groups is not always seen as a wide gap), 0 when the row shows no gap or a gap the
    /// format does not have.
    static func explanation(_ format: PlateFormat, expansion e: Int, breaks seen: [Int]) -> Int {
        guard !seen.isEmpty, format.breaks.indices.contains(e) else { return 0 }
        let own = format.breaks[e]
        if own == seen { return 2 }
        return Set(seen).isSubset(of: own) ? 1 : 0
    }

    /// Labels `text` with the format it fits, given `breaks`: the row's wide gaps inside the text,
    /// as the number of characters before each (``breaks(_:lead:count:)``).
    ///
    /// In each region the formats that best explain the row's gaps (``explanation(_:expansion:breaks:)``)
    /// come first, then the heavier; formats equal on both tie. Across regions, when some region's
    /// best explains the gaps exactly, the heaviest of those leads and ties with every other that
    /// does and weighs at least ``rivalShare`` of it. Otherwise the heaviest region's best leads and
    /// ties with every other that weighs at least ``rivalShare`` of it or explains the gaps in
    /// part: a gap where only a broad format has one (a German plate's seals, or a wide space after
    /// a narrow first glyph) keeps it in the tie, it does not decide.
    func label(_ text: String, breaks: [Int], region: PlateRegion?) -> FormatLabel {
        let chars = Array(text)
        var fits: [(format: PlateFormat, explains: Int)] = []
        for format in grammar.formats(for: region) {
            var fitted = false, explains = 0
            for (e, slots) in format.expansions.enumerated()
            where slots.count == chars.count && zip(slots, chars).allSatisfy({ $0.contains($1) }) {
                fitted = true
                explains = max(explains, Self.explanation(format, expansion: e, breaks: breaks))
            }
            if fitted { fits.append((format, explains)) }
        }
        func better(_ a: (format: PlateFormat, explains: Int), _ b: (format: PlateFormat, explains: Int)) -> Bool {
            a.explains != b.explains ? a.explains > b.explains : a.format.weight > b.format.weight
        }
        // Each region's best formats (equal on layout and weight).
        var bests: [[(format: PlateFormat, explains: Int)]] = []
        for r in PlateRegion.allCases {
            let own = fits.filter { $0.format.region == r }
            guard let best = own.min(by: better) else { continue }
            bests.append(own.filter { !better(best, $0) })
        }
        let exact = bests.filter { $0[0].explains == 2 }
        let field = exact.isEmpty ? bests : exact
        guard let leader = field.map({ $0[0].format }).max(by: { $0.weight < $1.weight }) else { return FormatLabel() }
        let chosen = field.filter { group in
            group[0].format.weight >= Self.rivalShare * leader.weight || (exact.isEmpty && group[0].explains == 1)
        }.flatMap { $0 }.map(\.format)
        if chosen.count == 1 { return FormatLabel(format: chosen[0]) }
        return FormatLabel(format: nil, tied: chosen.sorted { $0.name < $1.name })
    }
}
