import Logging
import SeerImage
#if canImport(Glibc)
import Glibc
#endif

/// One image's read: the preset's passes in order, each under its condition, within the time budget.
struct ReadSession {
    /// Receives the read's trace: each pass, candidate and check (at `.trace` level).
    let logger: Logger
    /// Whether the logger takes trace messages (checked once: building them costs time).
    let debug: Bool
    func debugLog(_ s: String) {
        logger.trace("\(s)", metadata: ["cpuMilliseconds": "\(Int(elapsedMs))", "found": "\(found.count)"])
    }

    let work: GrayImage
    /// The photo at twice the work image's resolution, made on demand (nil when there is none).
    let finer: (@Sendable () -> GrayImage?)?
    /// The image candidate codes are sampled from, and how its pixels map to work pixels: the work
    /// image, or a crop of the finer image for codes too small for the work image.
    var source: SampleSource
    /// The finer image once made (`.some(nil)` when there is none).
    var finerImage: GrayImage??
    /// Linear readings the bars contradicted, and where.
    var rejected: [(bytes: [UInt8], corners: [Point])] = []
    /// Linear readings dropped because another reading of the same place disagreed with them
    /// (``dropConflictingLinear()``): a reading made after, where one of them lies, must agree with
    /// every one of them.
    var disputed: [(symbology: Symbology, bytes: [UInt8], corners: [Point])] = []
    /// Function patterns by size, made once.
    var patterns: [Int: FunctionPattern] = [:]
    let scanner: ZBarScanner
    let options: CodeReader.Options
    let start = ReadSession.cpuMilliseconds()
    var found: [FoundSymbol] = []
    /// Strong finder patterns seen by any locator pass, in work coordinates.
    var finders: [FinderPattern] = []
    /// The indices in `finders` already read as a Micro QR Code's, or tried.
    var microQRTried = Set<Int>()
    /// The indices in `finders` already read as an rMQR's, or tried.
    var rmqrTried = Set<Int>()
    /// Levels made so far, with their scale to work coordinates.
    var levels: [CodeLevel: (image: GrayImage, scale: (Double, Double))] = [:]
    /// The locator pass running looks for light-on-dark codes.
    var inverted = false
    /// zbar scans made so far, by image size and filter: a level that is the same image as another
    /// (the reduced level of a photo already under 1024 pixels is the full one) is not scanned twice.
    var zbarScans: Set<String> = []
    /// CPU milliseconds per scanned pixel of this read's last zbar scan (nil before the first).
    var zbarCost: Double?
    /// Whether the reduced level shows a patch of bars (``BarEvidence``), once asked.
    var barsSeen: Bool?
    /// The patches of bars on the reduced level, found when ``showsBars()`` first looked.
    var barPatches: [BarEvidence.Patch] = []
    /// The reduced level under the local threshold, once made (the bull's-eye and DMRE searches share it).
    var reducedLocal: BinaryImage?
    /// The Aztec and MaxiCode bull's-eyes found so far, by the threshold of the image searched.
    var bullsEyeScans: [CodeBinarization: BullsEyeScan] = [:]
    /// A small reduced level enlarged for the bull's-eye searches, once made.
    var bullsEyeEnlarged: GrayImage?
    /// Outlines of the DataMatrix locator not read and the sizes that came near, for a second look
    /// (``readDMRENearMisses()``).
    var dmreUnread: [(locator: DMRELocator, outline: [Point], scale: (Double, Double), near: [DMRELocator.Hypothesis])] = []
    /// Whether the QR locator runs: for QR Codes, and for Micro QR Codes and rMQRs, whose finder it finds.
    var wantsQR: Bool { options.symbologies.contains { $0.hasFinderPatterns } }
    var wantsLinear: Bool { options.symbologies.contains { !$0.isMatrix } }

    init(
        image: GrayImage, finer: (@Sendable () -> GrayImage?)? = nil, scanner: ZBarScanner, options: CodeReader.Options,
        logger: Logger = Logger(label: "seer.codes", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.logger = logger
        self.debug = logger.logLevel <= .trace
        self.work = image
        self.finer = finer
        self.source = SampleSource(image: image)
        self.scanner = scanner
        self.options = options
    }

    /// The calling thread's CPU time: the budget counts work done, not time spent waiting for a
    /// core on a loaded machine, so results do not depend on the load.
    static func cpuMilliseconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
    }

    var elapsedMs: Double { Self.cpuMilliseconds() - start }
    /// At most this many CPU milliseconds in all, whatever the codes seen allow.
    var limitMilliseconds = Double.infinity
    /// Whether the budget is spent, or the read was asked to stop (``Cancellation``).
    var outOfTime: Bool {
        elapsedMs > budgetMilliseconds || Cancellation.requested
    }
    /// The CPU milliseconds the read may take, with what the codes seen so far add.
    var budgetMilliseconds: Double {
        min(Double(options.timeBudgetMilliseconds + options.timePerCodeMilliseconds * codesSeen), limitMilliseconds)
    }

    /// Whether a zbar scan of `pixels` would end past the budget, at the rate of this read's scans
    /// before it: a scan cannot stop part way, so one begun then would run the read over its budget
    /// by as long as it takes (on a 12-MP photo with nothing to read, most of the budget again) —
    /// the budget is a bound, not where the last scan begins. Such a scan is not begun.
    func zbarOverruns(_ pass: CodePass, pixels: Int) -> Bool {
        guard let zbarCost else { return false }
        let estimate = zbarCost * Double(pixels)
        guard elapsedMs + estimate > budgetMilliseconds else { return false }
        if debug { debugLog("stop before \(pass): about \(Int(estimate)) ms, past the budget") }
        return true
    }

    /// The codes the photo shows so far: those read, or a third of the strong finder patterns seen,
    /// whichever is more. A crowded sheet is known to be crowded once its finders are found, before
    /// its codes are read: the time a pass spent finding 180 finder patterns is not wasted by the
    /// budget stopping it before it reads the codes they belong to.
    var codesSeen: Int { max(found.count, finders.count / 3) }

    // MARK: Running the table

    mutating func run() {
        guard work.width >= 8, work.height >= 8 else { return }
        var table: [(pass: CodePass, when: PassCondition)] = []
        // The passes of the linear table: those of the QR table's passes it holds too (they run
        // once, where the QR table has them) and the rest, after the QR table's.
        var linear = Set<Int>(), qrCount = 0
        if let passes = options.passes {
            table = passes
        } else {
            if wantsQR { table += options.preset.qrPasses }
            qrCount = table.count
            if wantsLinear {
                for p in options.preset.linearPasses {
                    if let i = table.firstIndex(where: { $0.pass == p.pass }) {
                        linear.insert(i)
                    } else {
                        linear.insert(table.count)
                        table.append(p)
                    }
                }
            }
        }
        for (index, (pass, when)) in table.enumerated() {
            if outOfTime { break }
            switch when {
            case .always: break
            case .unexplained: if !isUnexplained(before: pass) { continue }
            case .nothingRead: if !found.isEmpty { continue }
            }
            if case .zbar(let level, _) = pass, let reason = zbarSkip(level, when: when, linear: linear.contains(index), qr: index < qrCount) {
                if debug { debugLog("skip \(pass): \(reason)") }
                continue
            }
            if when != .always, case .locator(.enlarged, _) = pass, wantsLinear, found.isEmpty, !finderPairSeen {
                if debug { debugLog("skip \(pass): no pair of finder patterns") }
                continue
            }
            if debug { debugLog("pass \(pass)") }
            // Once something is read, the linear table's own scans look for bars where there are
            // patches of them (``barCrops(_:scale:)``).
            run(pass, barsOnly: !found.isEmpty && options.passes == nil && linear.contains(index) && index >= qrCount)
        }
        // The readers of the other symbologies are not passes of a table: a caller that gives its
        // own passes (to measure them) gets those passes alone.
        if options.passes == nil {
            if wantsLinear, !outOfTime {
                // Readings of one place that disagree are dropped first: Seer's own reading across
                // the bars may then read the place, if it agrees with every one of them.
                dropConflictingLinear()
                readAcrossPatches()
                readDataBarExpanded()
            }
            readAztec()
            readDataMatrix()
            readDMRE()
            readPDF417()
            readMaxiCode()
            if options.symbologies.contains(.microqr) { readAtFinders(.microqr, tried: \.microQRTried) }
            if options.symbologies.contains(.rmqr) { readAtFinders(.rmqr, tried: \.rmqrTried) }
            readDMRENearMisses()
        }
        // QR Codes read while looking for Micro QR Codes only.
        if !options.symbologies.contains(.qr) { found.removeAll { $0.raw.symbology == .qr } }
        dropConflictingLinear()
    }

    mutating func run(_ pass: CodePass, barsOnly: Bool = false) {
        switch pass {
        case .locator(.finer, let binarization):
            guard wantsQR else { return }
            finerPass(binarization)
        case .locator(.full, let binarization) where max(work.width, work.height) < 1400 && finer != nil:
            // A work image decoded small (the fast preset): full detail is the finer decoding.
            guard wantsQR else { return }
            if finerImage == nil { finerImage = .some(finer?()) }
            guard let image = finerImage ?? nil, image.width > work.width else { return }
            let factor = Double(image.width) / Double(work.width)
            let saved = source
            source = SampleSource(image: image, scale: 1 / factor)
            inverted = binarization == .inverted
            locatorPass(binarize(image, binarization), scale: (1, 1), loose: binarization == .globalLoose)
            inverted = false
            source = saved
        case .locator(let level, let binarization):
            guard wantsQR, let (image, scale) = self.level(level) else { return }
            inverted = binarization == .inverted
            locatorPass(binarize(image, binarization), scale: scale, loose: binarization == .globalLoose)
            inverted = false
        case .zbar(.full, let filter) where max(work.width, work.height) < 1400 && finer != nil:
            // A work image decoded small: full detail for the bars is the finer decoding, made
            // while nothing is read (its cost is a second decoding of the photo).
            guard found.isEmpty else { return }
            if zbarOverruns(pass, pixels: 4 * work.width * work.height) { return }
            if finerImage == nil { finerImage = .some(finer?()) }
            guard let image = finerImage ?? nil, image.width > work.width else { return }
            guard zbarScans.insert("finer/\(filter)").inserted else { return }
            let factor = Double(work.width) / Double(image.width)
            inverted = filter == .inverted
            zbarPass(self.filter(image, filter), scale: (factor, factor), filter: filter)
            inverted = false
        case .zbar(let level, let filter):
            guard let (image, scale) = self.level(level) else { return }
            if zbarOverruns(pass, pixels: image.width * image.height) { return }
            guard zbarScans.insert("\(image.width)x\(image.height)/\(filter)").inserted else { return }
            inverted = filter == .inverted
            if barsOnly && !qrLeftUnread {
                // Every other line, along the lines that cross the bars, without zbar's QR reader:
                // a linear code that stands beside a code already read is looked for, and its bars
                // cross tens of lines wherever it can be read at all.
                if let crops = barCrops(image, scale: scale) {
                    if debug {
                        let pixels = crops.map { $0.width * $0.height }.reduce(0, +)
                        debugLog("\(pass): \(crops.count) patches of bars, \(pixels) of \(image.width * image.height) pixels, \(crops.map(\.lines.description))")
                    }
                    for c in crops {
                        let part = image.cropped(x: c.x, y: c.y, width: c.width, height: c.height)
                        zbarPass(self.filter(part, filter), scale: scale, offset: (c.x, c.y), filter: filter, density: 2, lines: c.lines, qr: false)
                    }
                } else {
                    let lines = barScanLines(openBarPatches)
                    if debug { debugLog("\(pass): the whole level, \(lines)") }
                    zbarPass(self.filter(image, filter), scale: scale, filter: filter, density: 2, lines: lines, qr: false)
                }
            } else {
                // zbar reads QR Codes too: a QR Code the locator saw but could not read may be anywhere.
                zbarPass(self.filter(image, filter), scale: scale, filter: filter)
            }
            inverted = false
        }
    }

    /// Why a zbar scan of the table is not worth its time on this photo, or `nil` to run it. The
    /// scans cost most of the time of a photo that holds no code. Once something is read, the linear
    /// table's own scans need a patch of bars (``BarEvidence``); while nothing is read and linear
    /// codes are asked for:
    /// - the QR table's fallback scans are for a QR Code the locator saw but could not read: they
    ///   need a pair of finder patterns (``finderPairSeen``), unless the linear table holds them too;
    /// - the linear table's scans, its first ones too, need a patch of bars (``BarEvidence``) or,
    ///   for those that read QR Codes as well (the first ones, and those the QR table holds too)
    ///   where QR Codes are asked for, a pair of finder patterns;
    /// - its scans of the enlarged level need a photo of at most the preset's
    ///   ``CodeReader/Preset/enlargedScanPixels``: the level has four times the photo's pixels, and
    ///   the codes only it reads are small photos filled by their code.
    /// A table given in the options (for measuring passes) keeps one rule for every zbar pass that
    /// does not always run: a patch of bars or a pair of finder patterns.
    mutating func zbarSkip(_ level: CodeLevel, when: PassCondition, linear: Bool, qr: Bool) -> String? {
        guard wantsLinear else { return nil }
        if !found.isEmpty {
            // Something read: the linear table's own scans still look for bars, where there are any.
            guard options.passes == nil, linear, !qr else { return nil }
            return showsBars() ? nil : "no bars"
        }
        // Whether the scan reads QR Codes too, so that a pair of finder patterns lets it run.
        let forQR: Bool
        if options.passes != nil {
            guard when != .always else { return nil }
            forQR = wantsQR
        } else if !linear {
            guard when != .always, !finderPairSeen else { return nil }
            return "no pair of finder patterns"
        } else {
            if level == .enlarged, let limit = options.preset.enlargedScanPixels, work.width * work.height > limit {
                return "photo over \(limit) pixels"
            }
            forQR = wantsQR && (when == .always || qr)
        }
        if forQR && finderPairSeen { return nil }
        if showsBars() { return nil }
        return forQR ? "no bars and no pair of finder patterns" : "no bars"
    }

    /// Whether the reduced level shows a patch of bars (``BarEvidence``) outside the matrix codes read
    /// so far (``openBarPatches``). The patches are looked for once per photo; an image too small to
    /// cut into cells, or with no reduced level, rules nothing out.
    mutating func showsBars() -> Bool {
        if barsSeen == nil {
            guard let (image, _) = level(.reduced) else { return true }
            barPatches = BarEvidence.patches(in: image)
            barsSeen = BarEvidence.mayHoldBars(image, patches: barPatches)
            if debug { debugLog("bar evidence on \(image.width)x\(image.height): \(barsSeen == true)") }
        }
        guard barsSeen == true else { return false }
        // An image too small to cut into cells has no patches and rules nothing out.
        if barPatches.isEmpty { return true }
        let open = openBarPatches.count
        if debug, open < barPatches.count { debugLog("bar evidence: \(barPatches.count - open) of \(barPatches.count) patches inside codes read") }
        return open > 0
    }

    /// The patches of bars (``barPatches``) a linear code may lie in: those not inside a matrix code
    /// already read. A QR Code's rows of modules often line up into a patch of bars, and no code is
    /// printed within another. A patch is inside a code when its box, less one cell at each side
    /// (the cells' grid does not follow the code's edges), lies within the code's outline grown by
    /// 15 % about its centre.
    var openBarPatches: [BarEvidence.Patch] {
        let codes = found.filter { $0.raw.symbology.isMatrix }
        guard !codes.isEmpty, let (image, scale) = levels[.reduced] else { return barPatches }
        let cell = BarEvidence.cellSide(image)
        return barPatches.filter { patch in
            let cx = Double(patch.x0 + patch.x1) / 2, cy = Double(patch.y0 + patch.y1) / 2
            let x0 = min(cx, Double(patch.x0 + cell)), x1 = max(cx, Double(patch.x1 - cell))
            let y0 = min(cy, Double(patch.y0 + cell)), y1 = max(cy, Double(patch.y1 - cell))
            let box = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)].map { Point(x: $0.0 * scale.0, y: $0.1 * scale.1) }
            return !codes.contains { code in box.allSatisfy { code.contains($0) } }
        }
    }

    /// Whether two strong finder patterns of about the same module size (within 1.5×) were seen: the
    /// least a QR Code the locator could not read leaves. A single one is common in text, tiles and
    /// textures. Gating the QR table's fallbacks on it when every symbology is asked for loses no
    /// code on the QR benchmark photos (`Benchmarks/codes/codes.py --symbologies all`).
    var finderPairSeen: Bool {
        for i in finders.indices {
            for j in finders.indices where j > i {
                if finders[i].isSized(like: finders[j]) { return true }
            }
        }
        return false
    }

    /// Whether a QR Code the locator saw may be left unread: QR Codes are asked for and a strong
    /// finder pattern is left that no code read explains. zbar, which reads QR Codes too, then scans
    /// the whole level both ways, every line.
    var qrLeftUnread: Bool { wantsQR && !unexplainedFinders.isEmpty }

    /// Strong finder patterns (seen on three or more rows) that no code read explains.
    var unexplainedFinders: [FinderPattern] {
        finders.filter { f in
            f.count >= 3 && !found.contains { $0.raw.symbology.hasFinderPatterns && $0.contains(Point(x: f.x, y: f.y)) }
        }
    }

    /// Whether the photo still holds something to read before `pass`: nothing read yet, strong finder
    /// patterns that no code read explains, or (for a pass at full detail) codes whose modules are
    /// small at the reduced level, so that smaller ones may have been missed.
    func isUnexplained(before pass: CodePass) -> Bool {
        if found.isEmpty { return true }
        let unexplained = unexplainedFinders
        // More detail helps only codes whose modules are small at the reduced level: finders left
        // unexplained that are small there, or codes read whose modules are small (their neighbours
        // may be smaller still).
        if case .locator(.full, _) = pass, let reduced = levels[.reduced], reduced.scale.0 > 1 {
            let small = 3 * reduced.scale.0
            return unexplained.contains { $0.module < small } || found.contains { $0.module > 0 && $0.module < small }
        }
        return !unexplained.isEmpty
    }

    // MARK: Levels and filters

    mutating func level(_ level: CodeLevel) -> (GrayImage, (Double, Double))? {
        if let made = levels[level] { return made }
        let made: (image: GrayImage, scale: (Double, Double))?
        switch level {
        case .full:
            made = (work, (1, 1))
        case .reduced:
            let side = max(work.width, work.height)
            let factor = max(1, Int((Double(side) / 1024).rounded()))
            let image = factor > 1 ? work.downscaled(by: factor) : work
            made = (image, (Double(work.width) / Double(image.width), Double(work.height) / Double(image.height)))
        case .coarse:
            guard let (reduced, s) = self.level(.reduced), max(reduced.width, reduced.height) >= 600 else { return nil }
            let image = reduced.downscaled(by: 2)
            made = (image, (s.0 * Double(reduced.width) / Double(image.width), s.1 * Double(reduced.height) / Double(image.height)))
        case .finer:
            return nil
        case .enlarged:
            // Only small images: enlarging a large one costs much and rarely finds a code.
            guard max(work.width, work.height) <= 800 else { return nil }
            let factor = 2
            made = (Imaging.upscaled(work, by: factor), (1 / Double(factor), 1 / Double(factor)))
        }
        levels[level] = made
        return made
    }

    /// The reduced level under the local threshold (``binarize(_:_:side:)`` with `.local`), made once.
    mutating func reducedLocalBinary() -> BinaryImage? {
        if let made = reducedLocal { return made }
        guard let (image, _) = level(.reduced) else { return nil }
        let made = binarize(image, .local)
        reducedLocal = made
        return made
    }

    /// Binarises `image`; windows are fractions of `side` (the image's long side unless given: a crop
    /// keeps the windows of the whole photo).
    func binarize(_ image: GrayImage, _ b: CodeBinarization, side: Int? = nil) -> BinaryImage {
        let side = side ?? max(image.width, image.height)
        switch b {
        case .local: return Imaging.binarize(image, window: max(24, side / 12))
        case .localWide: return Imaging.binarize(image, window: max(24, side / 6))
        case .localNarrow: return Imaging.binarize(image, window: max(16, side / 24))
        case .smoothed: return Imaging.binarize(Imaging.median3(image), window: max(24, side / 12))
        case .global, .globalLoose: return Imaging.otsu(image)
        case .inverted: return Imaging.binarize(image, window: max(24, side / 12)).inverted()
        }
    }

    func filter(_ image: GrayImage, _ f: CodeFilter) -> GrayImage {
        switch f {
        case .plain: image
        case .binarized: Imaging.binarize(image, window: max(24, max(image.width, image.height) / 12)).gray
        case .inverted: image.inverted()
        case .smoothed: Imaging.median3(image)
        case .stretched: Imaging.normalized(image)
        case .global: Imaging.otsu(image).gray
        }
    }

    // MARK: zbar

    /// The parts of a level (`scale`: level to work coordinates) worth a zbar scan once something is
    /// read and no QR Code the locator saw is left unread: each patch of bars on the reduced level
    /// (``showsBars()``) grown every way by half its larger side and 8 pixels, so that a code whose
    /// bars the patch holds only in part, and its quiet zones, lie inside; overlapping parts merged,
    /// each scanned along the lines its patches' bars need (``barScanLines(_:)``). `nil` (scan the
    /// whole level) when the parts cover more than three quarters of it or there is no reduced level
    /// to map the patches from.
    mutating func barCrops(_ image: GrayImage, scale: (Double, Double)) -> [(x: Int, y: Int, width: Int, height: Int, lines: ScanLines)]? {
        guard showsBars(), let (_, reduced) = level(.reduced) else { return nil }
        let fx = reduced.0 / scale.0, fy = reduced.1 / scale.1
        var boxes: [(x0: Int, y0: Int, x1: Int, y1: Int, patches: [BarEvidence.Patch])] = openBarPatches.map { p in
            let x0 = Double(p.x0) * fx, x1 = Double(p.x1 + 1) * fx, y0 = Double(p.y0) * fy, y1 = Double(p.y1 + 1) * fy
            let grow = max(x1 - x0, y1 - y0) / 2 + 8
            return (
                max(0, Int(x0 - grow)), max(0, Int(y0 - grow)),
                min(image.width, Int((x1 + grow).rounded(.up))), min(image.height, Int((y1 + grow).rounded(.up))), [p])
        }
        var merged = true
        while merged {
            merged = false
            outer: for i in boxes.indices {
                for j in boxes.indices where j > i {
                    let a = boxes[i], b = boxes[j]
                    if a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1 {
                        boxes[i] = (min(a.x0, b.x0), min(a.y0, b.y0), max(a.x1, b.x1), max(a.y1, b.y1), a.patches + b.patches)
                        boxes.remove(at: j)
                        merged = true
                        break outer
                    }
                }
            }
        }
        let area = boxes.map { ($0.x1 - $0.x0) * ($0.y1 - $0.y0) }.reduce(0, +)
        guard 4 * area <= 3 * image.width * image.height else { return nil }
        return boxes.filter { $0.x1 - $0.x0 >= 8 && $0.y1 - $0.y0 >= 8 }.map {
            ($0.x0, $0.y0, $0.x1 - $0.x0, $0.y1 - $0.y0, barScanLines($0.patches))
        }
    }

    /// The lines a zbar scan of `patches` (patches of bars, once something is read) needs: rows
    /// where some patch's bars stand within 55° of upright, columns where some patch's bars lie
    /// within 55° of flat. A scan line along the bars never crosses a symbol; one that crosses them
    /// more than 55° from square crosses a whole symbol only if it is taller than 1.4 times its
    /// length. Both ways where there is no patch to go by.
    func barScanLines(_ patches: [BarEvidence.Patch]) -> ScanLines {
        guard !patches.isEmpty else { return .both }
        let limit = 55 * Double.pi / 180
        var lines = ScanLines(rows: false, columns: false)
        for patch in patches {
            // The patch's angle is the edges' normal (0–π): 0 across upright bars, which rows cross.
            let fromRows = min(patch.angle, .pi - patch.angle)
            if fromRows < limit { lines.rows = true }
            if .pi / 2 - fromRows < limit { lines.columns = true }
        }
        return lines
    }

    /// zbar over an image whose coordinates, moved by `offset` and times `scale`, are work coordinates.
    mutating func zbarPass(
        _ image: GrayImage, scale: (Double, Double), offset: (Int, Int) = (0, 0), filter: CodeFilter = .plain, density: Int = 1,
        lines: ScanLines = .both, qr: Bool = true
    ) {
        let started = elapsedMs
        let symbols = scanner.scan(image, density: density, lines: lines, qr: qr)
        // The cost of a scan both ways, which is what the next scans are estimated as.
        zbarCost = (elapsedMs - started) * Double(density) * 2 / Double(max(1, lines.directions * image.width * image.height))
        for var raw in symbols {
            if raw.symbology == .qr && !options.symbologies.contains(.qr) { continue }
            let pts = raw.points.map { Point(x: ($0.x + Double(offset.0) + 0.5) * scale.0, y: ($0.y + Double(offset.1) + 0.5) * scale.1) }
            let corners = Self.corners(raw, pts)
            if raw.symbology != .qr {
                // A reading the bars contradicted once stays refused, whichever pass finds it again.
                if rejected.contains(where: { $0.bytes == raw.bytes && Self.boxesOverlap($0.corners, corners) }) { continue }
                // A GS1 reading (DataBar Expanded always) must be a well-formed element string.
                if debug, raw.symbology == .databarExpanded || raw.isGS1 { debugLog("decoder input \(DecoderInput.gs1(bytes: raw.bytes).hex)") }
                if raw.symbology == .databarExpanded || raw.isGS1, !GS1Syntax.isWellFormed(raw.bytes) {
                    if debug { debugLog("\(raw.symbology): not a well-formed GS1 element string: not reported") }
                    rejected.append((raw.bytes, corners))
                    continue
                }
                guard let checked = checkLinear(raw, corners: corners) else {
                    rejected.append((raw.bytes, corners))
                    continue
                }
                // Bars redrawn by a local threshold change their widths: a linear code read there
                // counts only when the grey image's bars confirm it.
                // (DataBar carries two check values of its own and counts anyway.)
                let selfChecking = Self.checksItself(raw.symbology)
                if (filter == .binarized || filter == .global) && !checked.barsAgree && !selfChecking { continue }
                // A reading the bars could not check stands on zbar's scan lines alone: it needs
                // several of them reading the same characters.
                if !checked.barsAgree && !selfChecking && checked.quality < Self.leastScanLines {
                    if debug { debugLog("\(raw.symbology): unchecked and seen on \(checked.quality) scan lines: not reported") }
                    continue
                }
                raw = checked
            }
            if raw.symbology == .qr {
                // zbar's reading is read again by Seer's decoder on the same corners; when the two
                // disagree, neither is reported.
                if let own = GridReader(image: work, inverted: inverted).read(corners: corners) {
                    guard own.stream.bytes == raw.bytes else {
                        if debug { debugLog("zbar and the grid decoder disagree: dropped") }
                        continue
                    }
                    raw.qr = own
                } else if debug {
                    debugLog("zbar QR not confirmed by the grid decoder")
                }
            }
            add(raw, corners: corners, module: 0)
        }
    }

    /// Whether a linear symbology carries enough check values of its own to stand without the bars'
    /// confirmation (DataBar carries two check values of its own; DataBar Limited, read by Seer
    /// itself, its mod-89 check character and the agreement of several lines).
    static func checksItself(_ s: Symbology) -> Bool { s == .databar || s == .databarExpanded || s == .databarLimited }

    /// EAN-13, UPC-A, EAN-8 and UPC-E.
    static func isEANFamily(_ s: Symbology) -> Bool { [.ean13, .upca, .ean8, .upce].contains(s) }

    /// The least scan lines (zbar's quality) that must read a linear code the bars could not check.
    /// A misread usually holds on one or two lines of a blurred or small code; the unchecked codes
    /// read right on the benchmark photos are seen on four or more.
    static let leastScanLines = 3

    /// A linear code zbar read, checked against its bars (``LinearCheck``): nil when the bars
    /// contradict it; Code 128 with the bytes Seer decoded itself when they differ from zbar's only
    /// by the extended characters zbar drops.
    func checkLinear(_ raw: RawSymbol, corners: [Point]) -> RawSymbol? {
        let profiles = [true, false].map { LinearCheck.profiles(work, corners: corners, horizontal: $0) }
        let lines = profiles.flatMap { set in
            set.flatMap { profile in
                // Each line twice: one level for the whole line, and levels local to each stretch.
                [nil, 8].map { LinearCheck.elements(profile.values, offset: profile.offset, radius: $0) }
            }
        }
        switch raw.symbology {
        case .ean13, .upca, .ean8, .upce:
            let text = String(decoding: raw.bytes, as: UTF8.self)
            let log: ((String) -> Void)? = debug ? { debugLog($0) } : nil
            let byEdges = LinearCheck.checkEAN(raw.symbology, text: text, lines: lines, log: log)
            // Rendered along the lines zbar's box lies on (rows when it is wider than tall).
            let xs = corners.map(\.x), ys = corners.map(\.y)
            let horizontal = (xs.max()! - xs.min()!) >= (ys.max()! - ys.min()!)
            let span = horizontal ? (xs.min()!, xs.max()!) : (ys.min()!, ys.max()!)
            let bySynthesis = LinearCheck.checkBySynthesis(
                raw.symbology, text: text, profiles: profiles[horizontal ? 0 : 1], span: span, log: log)
            // The rendering judges the whole line, so it decides when it can; the edges otherwise.
            var verdict: LinearCheck.Verdict = bySynthesis != .unknown ? bySynthesis : byEdges
            // A line decoding, whole, another symbol where this one lies: two readings of one
            // place disagree, so neither is reported.
            let axis = profiles.indices.map { k in k == 0 ? (xs.min()!, xs.max()!) : (ys.min()!, ys.max()!) }
            for (k, set) in profiles.enumerated() where verdict != .contradicts {
                let own = set.flatMap { p in [nil, 8].map { LinearCheck.elements(p.values, offset: p.offset, radius: $0) } }
                if let other = LinearCheck.otherSymbol(raw.symbology, text: text, lines: own, span: axis[k]) {
                    if debug { debugLog("\(raw.symbology) \(text): a line reads \(other.symbology) \(other.text) there") }
                    verdict = .contradicts
                }
            }
            if debug { debugLog("\(raw.symbology) \(text): the bars \(verdict) (edges \(byEdges), synthesis \(bySynthesis))") }
            var checked = raw
            checked.barsAgree = verdict == .agrees
            checked.confirmedTwice = verdict == .agrees && byEdges == .agrees && bySynthesis == .agrees
            return verdict == .contradicts ? nil : checked
        case .code128:
            guard let own = LinearCheck.decodeCode128(lines: lines) else {
                if debug { debugLog("code128: not decoded from the bars") }
                return raw
            }
            var fixed = raw
            fixed.barsAgree = true
            if own.bytes == raw.bytes { return fixed }
            // zbar drops FNC4: the same characters with the high bit cleared are its reading.
            if own.bytes.map({ $0 & 0x7F }) == raw.bytes {
                fixed.bytes = own.bytes
                return fixed
            }
            if debug { debugLog("code128: zbar \(raw.bytes) and the bars \(own.bytes) disagree: dropped") }
            return nil
        default:
            return raw
        }
    }

    /// Linear codes read differently at the same place (two readings of one symbol that disagree):
    /// neither is reported; nor is an unchecked reading where the bars refused another.
    mutating func dropConflictingLinear() {
        var drop = Set<Int>()
        for i in found.indices where !found[i].raw.symbology.isMatrix {
            for j in found.indices where j > i && !found[j].raw.symbology.isMatrix {
                guard found[i].raw.bytes != found[j].raw.bytes else { continue }
                // A DataBar Limited's box is its symbol's own, guard to guard along the lines that read
                // it, not zbar's box of scan points: it conflicts with what lies inside it.
                let exact = found[i].raw.symbology == .databarLimited || found[j].raw.symbology == .databarLimited
                if Self.boxesOverlap(found[i].corners, found[j].corners, grown: !exact) {
                    // A reading the bars confirmed outweighs one they could not check.
                    let a = found[i].raw.barsAgree, b = found[j].raw.barsAgree
                    if !a || b { drop.insert(i) }
                    if !b || a { drop.insert(j) }
                }
            }
        }
        // A reading the bars could not check, where another reading of the same place was
        // contradicted by them: zbar read that symbol two ways, and the one left is not known right.
        // An EAN/UPC too unless confirmed twice over: its place was read two ways, and the bars
        // refused one.
        for i in found.indices where !found[i].raw.symbology.isMatrix
            && (!found[i].raw.barsAgree || (Self.isEANFamily(found[i].raw.symbology) && !found[i].raw.confirmedTwice))
        {
            guard !Self.checksItself(found[i].raw.symbology) else { continue }
            if rejected.contains(where: { $0.bytes != found[i].raw.bytes && Self.boxesOverlap($0.corners, found[i].corners) }) {
                drop.insert(i)
            }
        }
        if debug && !drop.isEmpty { debugLog("\(drop.count) linear readings disagree where they overlap: dropped") }
        for i in drop.sorted() { disputed.append((found[i].raw.symbology, found[i].raw.bytes, found[i].corners)) }
        found = found.enumerated().filter { !drop.contains($0.offset) }.map(\.element)
    }

    /// Whether two boxes overlap once each is grown by a fifth of its longer side (zbar's boxes of
    /// one symbol read at different scales or scan lines need not touch), or as they are (`grown` false).
    static func boxesOverlap(_ a: [Point], _ b: [Point], grown: Bool = true) -> Bool {
        let ax = a.map(\.x), ay = a.map(\.y), bx = b.map(\.x), by = b.map(\.y)
        let ga = grown ? 0.2 * max(ax.max()! - ax.min()!, ay.max()! - ay.min()!, 10) : 0
        let gb = grown ? 0.2 * max(bx.max()! - bx.min()!, by.max()! - by.min()!, 10) : 0
        let g = ga + gb
        return ax.min()! <= bx.max()! + g && bx.min()! <= ax.max()! + g && ay.min()! <= by.max()! + g && by.min()! <= ay.max()! + g
    }

    /// zbar's location points as TL, TR, BR, BL (QR: zbar gives TL, BL, BR, TR; linear codes: the
    /// bounding box of the scan points).
    static func corners(_ raw: RawSymbol, _ pts: [Point]) -> [Point] {
        if raw.symbology == .qr && pts.count == 4 {
            return [pts[0], pts[3], pts[2], pts[1]]
        }
        let xs = pts.map(\.x), ys = pts.map(\.y)
        let x0 = xs.min() ?? 0, x1 = xs.max() ?? 0, y0 = ys.min() ?? 0, y1 = ys.max() ?? 0
        return [Point(x: x0, y: y0), Point(x: x1, y: y0), Point(x: x1, y: y1), Point(x: x0, y: y1)]
    }

    // MARK: Finer detail

    /// Codes whose modules are too small in the work image: the finder patterns left unexplained there
    /// with modules under 2.5 pixels are looked for again in a crop of the photo decoded at twice the
    /// resolution, and read from it.
    mutating func finerPass(_ binarization: CodeBinarization) {
        let small = finders.filter { f in
            f.module < 2.5 && !found.contains { $0.raw.symbology.hasFinderPatterns && $0.contains(Point(x: f.x, y: f.y)) }
        }
        if finerImage == nil { finerImage = .some(finer?()) }
        guard !small.isEmpty, let finer = finerImage ?? nil else { return }
        let factor = Double(finer.width) / Double(work.width)
        guard factor > 1.5 else { return }
        // One crop around the unexplained patterns, with room for codes of a few dozen modules.
        let margin = 40 * (small.map(\.module).max() ?? 2)
        let x0 = max(0, Int(((small.map(\.x).min() ?? 0) - margin) * factor))
        let y0 = max(0, Int(((small.map(\.y).min() ?? 0) - margin) * factor))
        let x1 = min(finer.width, Int(((small.map(\.x).max() ?? 0) + margin) * factor))
        let y1 = min(finer.height, Int(((small.map(\.y).max() ?? 0) + margin) * factor))
        guard x1 - x0 >= 16, y1 - y0 >= 16 else { return }
        let crop = finer.cropped(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        let saved = source
        source = SampleSource(image: crop, scale: 1 / factor, offsetX: Double(x0) / factor, offsetY: Double(y0) / factor)
        locatorPass(binarize(crop, binarization, side: Int(Double(max(work.width, work.height)) * factor)), scale: (1, 1))
        source = saved
    }

    // MARK: Locator

    /// Finds finder triples in `bin` (coordinates times `scale` are work coordinates) and reads each
    /// candidate code with the grid decoder.
    mutating func locatorPass(_ bin: BinaryImage, scale: (Double, Double), loose: Bool = false) {
        let patterns = FinderLocator.find(bin, loose: loose)
        if debug { debugLog("locator \(bin.width)x\(bin.height): \(patterns.count) patterns, counts \(patterns.map(\.count).sorted(by: >).prefix(12))") }
        let source = self.source
        let toWork = { (p: FinderPattern) in source.toWork(Point(x: p.x * scale.0, y: p.y * scale.1)) }
        for p in patterns where p.count >= 3 {
            let q = toWork(p)
            let module = p.module * (scale.0 + scale.1) / 2 * source.scale
            if !finders.contains(where: { abs($0.x - q.x) < 2 * module && abs($0.y - q.y) < 2 * module }) {
                var w = p
                w.x = q.x
                w.y = q.y
                w.module = module
                finders.append(w)
            }
        }
        func explained(_ p: FinderPattern) -> Bool {
            let q = toWork(p)
            return found.contains { $0.raw.symbology.hasFinderPatterns && $0.contains(q) }
        }
        var used = patterns.map(explained)
        if used.allSatisfy({ $0 }) { return }
        let triples = FinderLocator.triples(patterns)
        if debug {
            debugLog("locator \(bin.width)x\(bin.height): \(patterns.count) patterns, \(used.filter { $0 }.count) explained, \(triples.count) triples")
            for t in triples.prefix(12) {
                let q = [t.topLeft, t.topRight, t.bottomLeft].map { "(\(Int($0.x * scale.0)),\(Int($0.y * scale.1)))" }
                debugLog("  triple \(q.joined(separator: " ")) dim \(t.dimension) score \(t.score)")
            }
            for p in patterns { debugLog("  pattern (\(Int(p.x * scale.0)),\(Int(p.y * scale.1))) module \(p.module * scale.0) count \(p.count)") }
        }
        var attempts = 0
        // Micro QR Codes once the best triples had their turn (one for every three patterns): the
        // finders no code explains then, one finder a code, read from a few samples around it. A sheet
        // of them would otherwise spend the budget on the triples their finders form with each other.
        var microQRAfter = options.passes == nil && (options.symbologies.contains(.microqr) || options.symbologies.contains(.rmqr)) ? patterns.count / 3 + 2 : nil
        for t in triples {
            if outOfTime || attempts >= 40 + 2 * patterns.count { break }
            if t.members.contains(where: { used[$0] }) { continue }
            if let after = microQRAfter, attempts >= after {
                microQRAfter = nil
                if options.symbologies.contains(.microqr) { readAtFinders(.microqr, tried: \.microQRTried) }
                if options.symbologies.contains(.rmqr) { readAtFinders(.rmqr, tried: \.rmqrTried) }
                for (i, p) in patterns.enumerated() where !used[i] && explained(p) { used[i] = true }
                if t.members.contains(where: { used[$0] }) { continue }
            }
            attempts += 1
            if decodeTriple(t, bin, scale: scale) {
                for (i, p) in patterns.enumerated() where !used[i] && explained(p) { used[i] = true }
                for m in t.members { used[m] = true }
            }
        }
    }

    /// Places one candidate code from its finder triple and reads it: the version the finder spacing
    /// suggests first (then the one the version information names, or its neighbours), each from the
    /// transforms the finders and the alignment pattern give, fitted to the function patterns when a
    /// direct read fails.
    mutating func decodeTriple(_ t: FinderTriple, _ bin: BinaryImage, scale: (Double, Double)) -> Bool {
        let s = (scale.0 + scale.1) / 2
        func w(_ x: Double, _ y: Double) -> Point { Point(x: x * scale.0, y: y * scale.1) }
        var module = t.topLeft.module * s
        // The size from module widths measured along the lines between the finders.
        var first = t.dimension
        if let measured = FinderLocator.measuredDimension(bin, t) {
            let v = max(1, min(40, Int(((measured - 17) / 4).rounded())))
            first = QRSpec.dimension(version: v)
            module = s * (dist(Point(x: t.topLeft.x, y: t.topLeft.y), Point(x: t.topRight.x, y: t.topRight.y)) / (measured - 7))
        }
        var queue = [first]
        var tried = Set<Int>()
        var bestQuick = -Double.infinity
        var namedByVersion = Set<Int>()
        let fitter = GridFit(image: source.image, inverted: inverted)
        let reader = GridReader(image: source.image, inverted: inverted)
        while let dim = queue.first {
            queue.removeFirst()
            guard tried.insert(dim).inserted, !outOfTime else { continue }
            var tt = t
            tt.dimension = dim
            let d = Double(dim)
            let from = [Point(x: 3.5, y: 3.5), Point(x: d - 3.5, y: 3.5), Point(x: 3.5, y: d - 3.5)]
            let to = [w(t.topLeft.x, t.topLeft.y), w(t.topRight.x, t.topRight.y), w(t.bottomLeft.x, t.bottomLeft.y)]
            // Cheap transforms first; most candidates are finders of different codes or texture, and
            // their function patterns show no contrast under any transform.
            let pattern = functionPattern(dim)
            var transforms: [(h: Homography, quick: Double)] = []
            for h in [Self.perspectiveFromModuleSizes(t, dimension: d, from: from, to: to), Homography(affineFrom: from, to: to)] {
                if let h { transforms.append((h, fitter.fitness(h, pattern))) }
            }
            // Large codes: the version information beside the finders names the exact size.
            var versionAgreed = false
            if dim >= 45, let h = transforms.last?.h, let probe = reader.probeVersion(h, dimension: dim) {
                let named = QRSpec.dimension(version: probe.version)
                if debug { debugLog("version probe at \(dim): version \(probe.version), agreed \(probe.agreed)") }
                // One copy alone names some version for about one grid in eight that is no code at all.
                if probe.agreed && named != dim {
                    if !tried.contains(named) { queue.insert(named, at: 0) }
                    continue
                }
                versionAgreed = probe.agreed && named == dim
            }
            let quick = transforms.map(\.quick).max() ?? -.infinity
            bestQuick = max(bestQuick, quick)
            // A size the version information of a grid read here named: a code is there.
            let named0 = namedByVersion.contains(dim)
            guard quick >= Self.minimumQuickFit || named0 else { continue }
            // Finders of neighbouring codes line up like one code's; only a real code has the
            // alternating timing modules between them. Without them, only a strong fit is worth trying.
            let timing = transforms.map { fitter.timingContrast($0.h, dimension: dim) }.max() ?? 0
            if debug { debugLog("candidate \(dim) at (\(Int(t.topLeft.x)),\(Int(t.topLeft.y))): quick \(quick) timing \(timing)") }
            // Both copies of the version information naming this size is as good as a timing pattern
            // (large codes curve, and their long timing patterns drift out of register).
            let timingSeen = timing >= 1 || versionAgreed || named0
            // A large code's grid is read between its alignment patterns, found one by one, so it is
            // worth reading even when the finders' grid has drifted off its timing patterns.
            let large = dim >= 61
            guard timingSeen || large || quick >= 2 else { continue }
            if let a = FinderLocator.alignment(bin, tt),
                let h = Homography(from: from + [Point(x: d - 6.5, y: d - 6.5)], to: to + [w(a.x, a.y)])
            {
                transforms.append((h, fitter.fitness(h, pattern)))
            }
            transforms.sort { $0.quick > $1.quick }
            var named: Int?
            var formatRead = false
            for (h, _) in transforms where timingSeen || large {
                let result = reader.read(h, dimension: dim, anchored: large ? true : nil)
                if debug { debugLog("read \(dim): \(result.map { _ in "ok" })") }
                switch result {
                case .success(let decoded):
                    if debug { debugLog("read directly") }
                    addDecoded(decoded, h: h, dimension: dim, module: module)
                    return true
                case .failure(.version(let v)):
                    named = QRSpec.dimension(version: v)
                case .failure(.errorCorrection), .failure(.dataStream):
                    formatRead = true
                case .failure:
                    break
                }
                if named != nil || outOfTime { break }
            }
            // The transform from the finders' outlines: their corners fix the perspective.
            if named == nil, !outOfTime, formatRead || quick >= 2 || named0 || versionAgreed, let best = transforms.first,
                let outlined = fitter.fromFinderOutlines(best.h, dimension: dim)
            {
                switch reader.read(outlined, dimension: dim, anchored: large ? true : nil) {
                case .success(let decoded):
                    if debug { debugLog("read from the finders' outlines") }
                    addDecoded(decoded, h: outlined, dimension: dim, module: module)
                    return true
                case .failure(.version(let v)):
                    named = QRSpec.dimension(version: v)
                default:
                    if debug { debugLog("finders' outlines: no read") }
                }
            }
            // The best transform fitted to the function patterns, then read again.
            // Fitting costs as much as many reads: only for a grid whose format information read, or
            // whose function patterns already show clear contrast.
            if named == nil, !outOfTime, formatRead || quick >= 2 || named0 || versionAgreed, let best = transforms.first {
                let e = Double(dim)
                let quad = CodeQuad(corners: [best.h.apply(0, 0), best.h.apply(e, 0), best.h.apply(e, e), best.h.apply(0, e)], dimension: dim)
                let fit = fitter.refine(quad, module: module)
                if debug { debugLog("fitted grid \(dim): fitness \(fit.fitness)") }
                if fit.fitness > 2, let hf = fit.quad.homography {
                    switch reader.read(hf, dimension: dim, anchored: true) {
                    case .success(let decoded):
                        if debug { debugLog("read after fitting") }
                        addDecoded(decoded, h: hf, dimension: dim, module: module)
                        return true
                    case .failure(.version(let v)):
                        named = QRSpec.dimension(version: v)
                    default:
                        break
                    }
                    // The finders' outlines again, found from the fitted grid.
                    if named == nil, !outOfTime, let outlined = fitter.fromFinderOutlines(hf, dimension: dim) {
                        switch reader.read(outlined, dimension: dim, anchored: large ? true : nil) {
                        case .success(let decoded):
                            if debug { debugLog("read from the finders' outlines after fitting") }
                            addDecoded(decoded, h: outlined, dimension: dim, module: module)
                            return true
                        case .failure(.version(let v)):
                            named = QRSpec.dimension(version: v)
                        default:
                            break
                        }
                    }
                }
                bestQuick = max(bestQuick, fit.fitness)
            }
            if let named {
                namedByVersion.insert(named)
                queue.insert(named, at: 0)
            } else if dim == first && (bestQuick > 2 || formatRead) {
                // The grid fits a code but its size may be off by a version either way.
                queue += [dim - 4, dim + 4].filter { $0 >= 21 && $0 <= 177 }
            }
        }
        return false
    }

    /// The function pattern of a size (made once per session).
    mutating func functionPattern(_ dimension: Int) -> FunctionPattern {
        if let made = patterns[dimension] { return made }
        let made = FunctionPattern(dimension: dimension, alignmentLimit: 0)
        patterns[dimension] = made
        return made
    }

    /// The function-pattern contrast (``GridFit/fitness(_:_:)``) below which a candidate is not read:
    /// on the benchmark photos codes that read directly score 3 and more, most candidates that are no
    /// code score under 0.5.
    static let minimumQuickFit = 0.6

    /// A fourth corner from how the module size changes between the three finders: under a
    /// projective map the local scale goes as 1/w, and w is affine in module coordinates.
    static func perspectiveFromModuleSizes(_ t: FinderTriple, dimension d: Double, from: [Point], to: [Point]) -> Homography? {
        let mTL = t.topLeft.module, mTR = t.topRight.module, mBL = t.bottomLeft.module
        guard mTL > 0, mTR > 0, mBL > 0 else { return nil }
        let wTR = mTL / mTR, wBL = mTL / mBL
        // Only worth it when the sizes really differ; otherwise this is the affine guess again.
        guard abs(wTR - 1) > 0.08 || abs(wBL - 1) > 0.08 else { return nil }
        let wBR = wTR + wBL - 1
        guard wBR > 0.2 else { return nil }
        let x = (to[1].x * wTR + to[2].x * wBL - to[0].x) / wBR
        let y = (to[1].y * wTR + to[2].y * wBL - to[0].y) / wBR
        return Homography(from: from + [Point(x: d - 3.5, y: d - 3.5)], to: to + [Point(x: x, y: y)])
    }

    /// Micro QR Codes and rMQRs: each strong finder pattern that no code read explains, read as a
    /// Micro QR Code's (``MicroQR``) or as an rMQR's finder (``RMQR``: the format information beside
    /// it, then the sub-finder where it puts it). The locator passes found them; this costs a few
    /// samples per finder. `tried` holds the finders already read as this symbology.
    mutating func readAtFinders(_ symbology: Symbology, tried: WritableKeyPath<ReadSession, Set<Int>>) {
        let read = symbology == .microqr ? MicroQR.read : RMQR.read
        for (i, f) in finders.enumerated() where f.count >= 3 && !self[keyPath: tried].contains(i) {
            if outOfTime { return }
            self[keyPath: tried].insert(i)
            let center = Point(x: f.x, y: f.y)
            if found.contains(where: { $0.contains(center) }) { continue }
            let logger = self.logger
            let log: ((String) -> Void)? = debug ? { logger.trace("\($0)") } : nil
            // The finder's centre counts pixels from their centres; the readers sample from pixels' corners.
            let sampled = Point(x: f.x + 0.5, y: f.y + 0.5)
            guard let (decoded, corners) = read(work, sampled, f.module, log) else { continue }
            if debug { debugLog("\(symbology.rawValue) version \(decoded.version) at (\(Int(f.x)),\(Int(f.y)))") }
            let raw = RawSymbol(symbology: symbology, bytes: decoded.stream.bytes, points: [], quality: 1, isGS1: decoded.stream.gs1, qr: decoded)
            add(raw, corners: corners, module: f.module)
        }
    }

    /// Adds a code Seer decoded itself from the grid `h` maps.
    mutating func addDecoded(_ d: DecodedQR, h: Homography, dimension n: Int, module: Double) {
        let e = Double(n)
        let corners = d.mirrored
            ? [h.apply(0, 0), h.apply(0, e), h.apply(e, e), h.apply(e, 0)]
            : [h.apply(0, 0), h.apply(e, 0), h.apply(e, e), h.apply(0, e)]
        let raw = RawSymbol(symbology: .qr, bytes: d.stream.bytes, points: [], quality: 1, isGS1: d.stream.gs1, qr: d)
        add(raw, corners: corners.map(source.toWork), module: module * source.scale)
    }

    /// Adds a symbol unless the same payload was already read at the same place. Returns whether new.
    @discardableResult
    mutating func add(_ raw: RawSymbol, corners: [Point], module: Double) -> Bool {
        var candidate = FoundSymbol(raw: raw, corners: corners, module: module)
        if module == 0 && raw.symbology == .qr {
            // Module size from the outline: side length over the dimension.
            let side = (dist(corners[0], corners[1]) + dist(corners[0], corners[3])) / 2
            candidate.module = side / Double(raw.qr.map { QRSpec.dimension(version: $0.version) } ?? 25)
        }
        for (i, f) in found.enumerated() where f.raw.symbology == raw.symbology && f.raw.bytes == raw.bytes {
            if f.contains(candidate.center) || candidate.contains(f.center) {
                if raw.symbology != .qr && raw.quality > f.raw.quality { found[i].raw.quality = raw.quality }
                // The same reading confirmed another way.
                if raw.barsAgree && !f.raw.barsAgree { found[i].raw.barsAgree = true }
                if raw.confirmedTwice { found[i].raw.confirmedTwice = true }
                // A reading Seer's decoder confirmed replaces one it did not.
                if f.raw.qr == nil && raw.qr != nil { found[i] = candidate }
                return false
            }
        }
        // A QR Code read over a Micro QR Code's finder: the finder was the QR Code's, and the Micro
        // QR reading came from its corner.
        if raw.symbology == .qr { found.removeAll { $0.raw.symbology == .microqr && candidate.contains($0.center) } }
        found.append(candidate)
        return true
    }

    func dist(_ a: Point, _ b: Point) -> Double { ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot() }
}

/// An image codes are sampled from, and the map of its pixels to work-image pixels
/// (work = source × scale + offset).
struct SampleSource {
    var image: GrayImage
    var scale: Double = 1
    var offsetX: Double = 0
    var offsetY: Double = 0

    func toWork(_ p: Point) -> Point { Point(x: p.x * scale + offsetX, y: p.y * scale + offsetY) }
}
