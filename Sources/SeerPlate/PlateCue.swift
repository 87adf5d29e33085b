import SeerImage

/// What a plate shows beside its characters that tells apart formats sharing one layout: the
/// country code in an EU plate's band, a US state's name or a Brazilian plate's city line over (or
/// under) the characters. It is looked for only when the text alone leaves formats tied, and it
/// only narrows the tie (``FormatLabel/narrowed(by:)``): it never changes the text read or its
/// confidence (docs/plates.md, "Labels").
enum PlateCue: Equatable {
    /// The country code of an EU band, as the format names begin (`de`, `sk`, …).
    case country(String)
    /// A region told by the words printed on the plate.
    case region(PlateRegion)

    /// The EU distinguishing signs of the countries the grammars have formats for, to the
    /// formats' names (`nl` for `nl-1` … `nl-8`).
    static let bandCodes: [String: String] = [
        "D": "de", "F": "fr", "I": "it", "E": "es", "NL": "nl", "SK": "sk", "CZ": "cz", "PL": "pl", "GB": "uk", "UK": "uk",
    ]

    /// The US states' names as plates print them.
    static let states = [
        "ALABAMA", "ALASKA", "ARIZONA", "ARKANSAS", "CALIFORNIA", "COLORADO", "CONNECTICUT", "DELAWARE", "FLORIDA", "GEORGIA",
        "HAWAII", "IDAHO", "ILLINOIS", "INDIANA", "IOWA", "KANSAS", "KENTUCKY", "LOUISIANA", "MAINE", "MARYLAND",
        "MASSACHUSETTS", "MICHIGAN", "MINNESOTA", "MISSISSIPPI", "MISSOURI", "MONTANA", "NEBRASKA", "NEVADA", "NEWHAMPSHIRE",
        "NEWJERSEY", "NEWMEXICO", "NEWYORK", "NORTHCAROLINA", "NORTHDAKOTA", "OHIO", "OKLAHOMA", "OREGON", "PENNSYLVANIA",
        "RHODEISLAND", "SOUTHCAROLINA", "SOUTHDAKOTA", "TENNESSEE", "TEXAS", "UTAH", "VERMONT", "VIRGINIA", "WASHINGTON",
        "WESTVIRGINIA", "WISCONSIN", "WYOMING",
    ]

    /// Brazil's state codes, with which an old plate's city line begins (`SP - SAO PAULO`).
    static let brazilStates: Set<String> = [
        "AC", "AL", "AP", "AM", "BA", "CE", "DF", "ES", "GO", "MA", "MT", "MS", "MG", "PA", "PB", "PR", "PE", "PI", "RJ", "RN",
        "RS", "RO", "RR", "SC", "SP", "SE", "TO",
    ]

    /// Whether `format` is one this cue allows.
    func allows(_ format: PlateFormat) -> Bool {
        switch self {
        case .region(let region): format.region == region
        case .country(let name): format.region == .eu && format.name.split(separator: "-").first.map(String.init) == name
        }
    }

    /// The cue a line of small text gives (letters only, as Tesseract read it): a state's name
    /// (one letter off at most, or found whole inside the line) for the US; `BRASIL`, or a state
    /// code followed by a city's name, for Brazil, whose plates print them above the characters
    /// (`above`; the line under a plate is often a dealer's frame).
    static func region(inLine text: String, above: Bool = true) -> PlateRegion? {
        guard text.count >= 4 else { return nil }
        for state in states where text.contains(state) || (state.count >= 5 && editDistance(text, state) <= 1) { return .us }
        guard above else { return nil }
        if text.contains("BRASIL") { return .br }
        if text.count >= 6, brazilStates.contains(String(text.prefix(2))) { return .br }
        return nil
    }

    /// The cue an EU band's code gives, read as letters.
    static func country(inBand text: String) -> String? { bandCodes[text] }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in 1...max(1, b.count) where !b.isEmpty {
                let kept = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = kept
            }
        }
        return row[b.count]
    }
}

extension PlateCue {
    /// Looks for a cue around a straightened row, in the photo itself (the straightened crop holds
    /// only the glyph band): an EU band left of the characters when `regions` holds the EU, a
    /// line of small text above or below them when it holds the US or Brazil. Tesseract reads only
    /// what the grey levels show is there (a dark band; ink in a line's strip).
    static func read(_ rect: RectifiedRow, _ row: GlyphRow, in source: GrayImage, ocr: TesseractReader, regions: Set<PlateRegion>) -> PlateCue? {
        let (u0, u1, v0, v1) = row.extent
        let g = Double(max(8, v1 - v0))
        let left = Double(u0), right = Double(u1), top = Double(v0), bottom = Double(v1)
        // The plate's ground and ink, from the glyph band and a margin above and below it (most of
        // it ground): light ground for the plates with cues.
        let band = sampled(rect, source, u: left...right, v: (top - 0.15 * g)...(bottom + 0.15 * g), scale: 0.5).pixels.sorted()
        guard band.count >= 16 else { return nil }
        let ink = Double(band[band.count / 10]), ground = Double(band[band.count * 9 / 10])
        guard ground - ink >= 40, Double(band[band.count / 2]) > (ink + ground) / 2 else { return nil }
        let cut = (ink + ground) / 2
        if regions.contains(.eu), let code = euBand(rect, source, left: left, top: top, bottom: bottom, g: g, cut: cut, ocr: ocr) {
            return .country(code)
        }
        guard regions.contains(.us) || regions.contains(.br) else { return nil }
        for (strip, above) in [((top - 0.85 * g)...(top - 0.08 * g), true), ((bottom + 0.08 * g)...(bottom + 0.85 * g), false)] {
            let image = sampled(rect, source, u: (left - 0.6 * g)...(right + 0.6 * g), v: strip, scale: 2)
            let dark = Double(image.pixels.filter { Double($0) < cut }.count) / Double(max(1, image.pixels.count))
            // A line of text inks a few to a third of its strip; a blank strip or a dark one (the
            // car past the plate's edge) holds none.
            guard dark > 0.02, dark < 0.35 else { continue }
            let text = String(ocr.read(image, layout: .line).map(\.character).filter(\.isLetter))
            if let region = region(inLine: text, above: above), regions.contains(region) { return .region(region) }
        }
        return nil
    }

    /// The country code in an EU band: a run of dark columns at least 0.35 glyph heights wide
    /// that ends at most 0.6 of one before the first character (0.75 of one is read), its code the
    /// lowest line of light ink in it, read as letters.
    static func euBand(_ rect: RectifiedRow, _ source: GrayImage, left: Double, top: Double, bottom: Double, g: Double, cut: Double,
        ocr: TesseractReader) -> String? {
        let from = left - 1.9 * g, span = (top - 0.1 * g)...(bottom + 0.1 * g)
        let strip = sampled(rect, source, u: from...(left - 0.04 * g), v: span, scale: 1)
        let w = strip.width, h = strip.height
        guard w >= 8, h >= 8 else { return nil }
        let darkColumn = (0..<w).map { x in
            Double((0..<h).filter { Double(strip.pixels[$0 * w + x]) < cut }.count) / Double(h) >= 0.5
        }
        // The run of dark columns nearest the characters, at most a band's width of it (a band is
        // about half a glyph height wide; the ground past the plate may be as dark).
        guard let end = darkColumn.lastIndex(of: true), Double(w - 1 - end) <= 0.6 * g else { return nil }
        var start = end
        while start > 0, darkColumn[start - 1], Double(end - start) < 0.75 * g { start -= 1 }
        let width = Double(end - start + 1)
        guard width >= 0.35 * g else { return nil }
        // Inside the band's edges, light on dark made dark on light; the code is the lowest line
        // of ink in it (the ring of stars is above it).
        let u = (from + Double(start) + 0.1 * width)...(from + Double(end) - 0.1 * width)
        let whole = Rectifier.stretched(sampled(rect, source, u: u, v: (top - 0.3 * g)...(bottom + 0.3 * g), scale: 2).inverted())
        let inkRows = (0..<whole.height).map { y in (0..<whole.width).contains { whole.pixels[y * whole.width + $0] < 128 } }
        guard let last = inkRows.lastIndex(of: true) else { return nil }
        var first = last
        while first > 0, inkRows[first - 1] || (first > 1 && inkRows[first - 2]) { first -= 1 }
        guard Double(last - first + 1) >= 0.4 * g else { return nil }
        let margin = Int(0.15 * g)
        let y0 = max(0, first - margin), y1 = min(whole.height - 1, last + margin)
        let code = whole.cropped(x: 0, y: y0, width: whole.width, height: y1 - y0 + 1)
        let padded = GrayImage(width: code.width + 24, height: code.height + 24) { x, y in
            (12..<(code.width + 12)).contains(x) && (12..<(code.height + 12)).contains(y) ? code.pixels[(y - 12) * code.width + x - 12] : 255
        }
        let text = String(ocr.read(padded, layout: .line).map(\.character).filter(\.isLetter))
        return country(inBand: text)
    }

    /// The photo under straightened coordinates `u` × `v`, `scale` pixels a unit (bilinear).
    static func sampled(_ rect: RectifiedRow, _ source: GrayImage, u: ClosedRange<Double>, v: ClosedRange<Double>, scale: Double) -> GrayImage {
        let w = max(1, Int((u.upperBound - u.lowerBound) * scale)), h = max(1, Int((v.upperBound - v.lowerBound) * scale))
        let sw = source.width, sh = source.height
        return source.pixels.withUnsafeBufferPointer { p in
            GrayImage(width: w, height: h) { x, y in
                let (sx, sy) = rect.toSource(u.lowerBound + Double(x) / scale, v.lowerBound + Double(y) / scale)
                let x0 = Int(sx.rounded(.down)), y0 = Int(sy.rounded(.down))
                let fx = sx - Double(x0), fy = sy - Double(y0)
                func at(_ px: Int, _ py: Int) -> Double { Double(p[min(sh - 1, max(0, py)) * sw + min(sw - 1, max(0, px))]) }
                let value = (at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx) * (1 - fy) + (at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx) * fy
                return UInt8(max(0, min(255, value.rounded())))
            }
        }
    }
}

extension FormatLabel {
    /// The label once `cue` has had its say: the tied formats it allows (decided when one is
    /// left); unchanged when it allows none of them or there was no tie.
    func narrowed(by cue: PlateCue?) -> FormatLabel {
        guard let cue, !tied.isEmpty else { return self }
        let kept = tied.filter(cue.allows)
        switch kept.count {
        case 0: return self
        case 1: return FormatLabel(format: kept[0])
        default: return FormatLabel(format: nil, tied: kept)
        }
    }
}
