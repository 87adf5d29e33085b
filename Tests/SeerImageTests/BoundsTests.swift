import Foundation
import SeerImage
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Work, memory and determinism bounds on hostile files (the corpus's `bound-*` files, made by
/// `scripts/malformed-corpus.py`), and the decode budget that carries them.
@Suite("Decoding bounds")
struct BoundsTests {
    static func entry(_ name: String) throws -> MalformedCorpus.Entry {
        try #require(MalformedCorpus.entries.first { $0.name == name }, "\(name) is not in the corpus")
    }

    /// CPU seconds this thread has used.
    static func threadCPU() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
    }

    /// Every committed fixture and every corpus file decodes to the same bytes twice, with the
    /// allocator filling fresh memory differently each time (glibc's `M_PERTURB`): no output pixel
    /// may come from memory the decoder did not write. Typed errors must be the same too.
    @Test func decodingTwiceGivesTheSameBytes() throws {
        let corpus = MalformedCorpus.entries.map(\.path)
        try #require(!corpus.isEmpty, "the corpus generator did not run")
        var fixtures: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: Fixtures.root)
        while let name = enumerator?.nextObject() as? String {
            if ["jpg", "png", "heic", "webp"].contains((name as NSString).pathExtension.lowercased()) {
                fixtures.append("\(Fixtures.root)/\(name)")
            }
        }
        #expect(fixtures.count >= 40)
        // glibc's mallopt (malloc.h is not in the Glibc module); M_PERTURB is -6.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let symbol = try #require(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt"), "no mallopt")
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        // Each output is kept as a hash of its bytes (Hasher is the same for the whole process).
        func digest(_ bytes: [UInt8]) -> Int {
            var hasher = Hasher()
            hasher.combine(bytes)
            return hasher.finalize()
        }
        func decodeAll(_ perturb: Int32) -> [String: Int] {
            _ = mallopt(-6, perturb)
            defer { _ = mallopt(-6, 0) }
            var out: [String: Int] = [:]
            for path in fixtures + corpus {
                for rgb in [false, true] {
                    let key = "\(path) rgb=\(rgb)"
                    do {
                        let image = try ImageDecoder.decode(contentsOf: path, options: DecodeOptions(includeRGB: rgb))
                        out[key] = digest(rgb ? (image.rgb?.pixels ?? []) : image.gray.pixels)
                    } catch let error as ImageError {
                        out[key] = digest(Array("error \(error.code)".utf8))
                    } catch {
                        out[key] = digest(Array("error \(error)".utf8))
                    }
                }
            }
            return out
        }
        let first = decodeAll(0x5A)
        let second = decodeAll(0xC3)
        var differing: [String] = []
        for (key, bytes) in first where second[key] != bytes { differing.append(key) }
        #expect(differing.isEmpty, "decoded differently twice: \(differing.sorted().prefix(10))")
        #expect(first.count == 2 * (fixtures.count + corpus.count))
    }

    /// A HEIC grid must be covered by its tiles (else the rest would be uninitialised memory).
    @Test(arguments: ["bound-heic-grid-uncovered-1x1.heic", "bound-heic-grid-uncovered-2x2.heic"])
    func gridsTheirTilesDoNotCoverAreRefused(name: String) throws {
        let file = try Self.entry(name)
        let error = #expect(throws: ImageError.self) { try ImageDecoder.decode(contentsOf: file.path) }
        #expect(error?.code == .corrupt)
        #expect(error?.message.contains("cover only") == true, "\(String(describing: error))")
        let covered = try ImageDecoder.decode(contentsOf: Self.entry("bound-heic-grid-covered-2x2.heic").path)
        #expect(covered.gray.width == 120 && covered.gray.height == 100)
    }

    /// Grid chains: 8 levels of references decode, 9 and more are refused however the items are
    /// numbered (the tile first here, so a walk that starts from the lowest item sees the chain's
    /// bottom first).
    @Test func gridChainsDeeperThanEightAreRefused() throws {
        for depth in [2, 8] {
            let image = try ImageDecoder.decode(contentsOf: Self.entry("bound-heic-grid-chain-\(depth).heic").path)
            #expect(image.gray.width == 64 && image.gray.height == 64)
        }
        for depth in [9, 16, 64] {
            let error = #expect(throws: ImageError.self) {
                try ImageDecoder.decode(contentsOf: Self.entry("bound-heic-grid-chain-\(depth).heic").path)
            }
            #expect(error?.code == .corrupt)
            #expect(error?.message.contains("more than 8 levels") == true, "\(depth): \(String(describing: error))")
        }
    }

    /// Twenty text chunks that inflate to 63 MB each are skipped, not inflated: the header and the
    /// decode cost what the image costs (1 CPU-second is 20 times what they take; inflating the
    /// text took 8).
    @Test(arguments: ["bound-png-ztxt-20x63mb.png", "bound-png-itxt-20x63mb.png"])
    func pngTextChunksAreNotInflated(name: String) throws {
        let file = try Self.entry(name)
        let start = Self.threadCPU()
        let info = try ImageDecoder.info(contentsOf: file.path)
        let image = try ImageDecoder.decode(contentsOf: file.path)
        let spent = Self.threadCPU() - start
        #expect(info.width == image.gray.width && image.gray.width > 0)
        #expect(spent < 1, "\(name): \(spent) CPU-s")
    }

    /// libpng's default limit of 1 000 000 pixels a side is not Seer's: a 1 000 001×1 image is
    /// 1 megapixel, far under the pixel limit, and valid.
    @Test func pngsWiderOrTallerThanAMillionDecode() throws {
        let wide = try ImageDecoder.decode(contentsOf: Self.entry("bound-png-wide-1000001.png").path)
        #expect(wide.gray.width == 1_000_001 && wide.gray.height == 1)
        #expect(wide.gray.pixels[7] == 49 && wide.gray.pixels[1_000_000] == UInt8((1_000_000 * 7) & 0xFF))
        let tall = try ImageDecoder.decode(contentsOf: Self.entry("bound-png-tall-1000001.png").path)
        #expect(tall.gray.width == 1 && tall.gray.height == 1_000_001)
        #expect(tall.gray.pixels[3] == 15)
        // The pixel limit still applies.
        let error = #expect(throws: ImageError.self) {
            try ImageDecoder.decode(contentsOf: Self.entry("bound-png-wide-1000001.png").path, options: DecodeOptions(pixelLimit: 1_000_000))
        }
        #expect(error?.code == .tooLarge)
    }

    /// An animation's first frame is composited onto white where it does not cover the canvas.
    @Test func animatedWebPFramesArePlacedOnTheirCanvas() throws {
        let image = try ImageDecoder.decode(contentsOf: Self.entry("bound-webp-anim-two-frames.webp").path, options: DecodeOptions(includeRGB: true))
        #expect(image.gray.width == 64 && image.gray.height == 64)
        // The first frame fills the canvas with (40, 90, 160), opaque.
        for (x, y) in [(0, 0), (63, 63), (10, 40)] {
            let p = try #require(image.rgb?[x, y])
            #expect(p.r == 40 && p.g == 90 && p.b == 160, "(\(x), \(y)): \(p)")
        }
        let huge = try ImageDecoder.decode(contentsOf: Self.entry("bound-webp-anim-canvas-100mp.webp").path)
        #expect(huge.gray.width == 9999 && huge.gray.height == 9999)
        #expect(huge.gray.pixels[0] == Luma.bt601(40, 90, 160))
        #expect(huge.gray.pixels[1] == 255 && huge.gray.pixels[huge.gray.count - 1] == 255)
    }

    /// A frame whose ANMF header and bitstream disagree about its size is damage.
    @Test(arguments: ["bound-webp-anim-anmf-larger.webp", "bound-webp-anim-anmf-smaller.webp", "bound-webp-anim-second-frame-lies.webp"])
    func animationFramesThatLieAboutTheirSizeAreRefused(name: String) throws {
        let error = #expect(throws: ImageError.self) { try ImageDecoder.decode(contentsOf: Self.entry(name).path) }
        #expect(error?.code == .corrupt)
        #expect(error?.message.contains("in its ANMF header") == true, "\(String(describing: error))")
    }

    /// The budget's memory is checked from the header, before anything image-sized is allocated.
    @Test func theMemoryBudgetRefusesFromTheHeader() throws {
        let path = Fixtures.path("decode", "rgb8.png")
        let image = try ImageDecoder.decode(contentsOf: path)
        let info = image.info
        let needed = ImageDecoder.estimatedMemory(info, options: DecodeOptions())
        #expect(needed >= image.gray.count)
        let error = #expect(throws: ImageError.self) {
            try ImageDecoder.decode(contentsOf: path, options: DecodeOptions(budget: DecodeBudget(memory: needed - 1)))
        }
        #expect(error?.code == .tooLarge)
        #expect(error?.message.contains("over the budget") == true, "\(String(describing: error))")
        _ = try ImageDecoder.decode(contentsOf: path, options: DecodeOptions(budget: DecodeBudget(memory: needed)))
        // Colour costs more than grey, and the budget sees it.
        #expect(ImageDecoder.estimatedMemory(info, options: DecodeOptions(includeRGB: true)) > needed)
    }

    /// Every image within the default pixel limit fits the default memory budget, in every format,
    /// with colour and a turned orientation (the most a decode holds).
    @Test func theDefaultBudgetAdmitsEveryImageUnderThePixelLimit() {
        let budget = DecodeBudget()
        for format in [ImageFormat.jpeg, .png, .heic, .webp] {
            let info = ImageInfo(format: format, storedWidth: 10_000, storedHeight: 10_000, orientation: .right)
            let worst = ImageDecoder.estimatedMemory(
                info, progressive: true, options: DecodeOptions(includeRGB: true, applyOrientation: true))
            #expect(worst <= budget.memory, "\(format): \(worst >> 20) MiB")
        }
        let over = ImageInfo(format: .png, storedWidth: 100_000, storedHeight: 100_000, orientation: .up)
        #expect(ImageDecoder.estimatedMemory(over, options: DecodeOptions()) > budget.memory)
    }

    /// The CPU budget stops a JPEG, PNG or HEIC decode part-way (here one that has no time at all;
    /// HEIC between its coded pictures: the grid's tiles).
    @Test(arguments: [
        ("decode", "progressive.jpg"), ("decode", "baseline-420.jpg"), ("decode", "rgb8.png"), ("decode", "gray8-interlaced.png"),
        ("heic", "grid.heic"),
    ])
    func theCPUBudgetStopsDecoding(group: String, name: String) throws {
        let path = Fixtures.path(group, name)
        _ = try ImageDecoder.decode(contentsOf: path)
        let error = #expect(throws: ImageError.self) {
            try ImageDecoder.decode(contentsOf: path, options: DecodeOptions(budget: DecodeBudget(cpuSeconds: 1e-9)))
        }
        #expect(error?.code == .tooLarge)
        #expect(error?.message.contains("CPU time") == true, "\(String(describing: error))")
        let bytes = try ImageDecoder.readFile(path)
        #expect(throws: ImageError.self) {
            try ImageDecoder.decode(bytes, options: DecodeOptions(budget: DecodeBudget(cpuSeconds: 1e-9)))
        }
    }

    /// An image file's format is recognised from its first bytes before the rest is read.
    @Test func readingAnImageRecognisesItFirst() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("seer-read-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let zeros = "\(dir)/zeros.jpg"
        let fd = open(zeros, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(fd >= 0)
        try #require(ftruncate(fd, 300 << 20) == 0)
        close(fd)
        let error = #expect(throws: ImageError.self) { try ImageDecoder.readImage(contentsOf: zeros) }
        #expect(error?.code == .notAnImage)
        #expect(error?.source == zeros)
        let png = try ImageDecoder.readImage(contentsOf: Fixtures.path("decode", "rgb8.png"))
        #expect(png == (try ImageDecoder.readFile(Fixtures.path("decode", "rgb8.png"))))
        let fifo = "\(dir)/pipe.png"
        try #require(mkfifo(fifo, 0o644) == 0)
        for read in [{ _ = try ImageDecoder.readImage(contentsOf: fifo) }, { _ = try ImageDecoder.decode(contentsOf: fifo) }, { _ = try ImageDecoder.info(contentsOf: fifo) }] {
            let refused = #expect(throws: ImageError.self) { try read() }
            #expect(refused?.code == .unreadable && refused?.message.contains("FIFO") == true, "\(String(describing: refused))")
        }
        let folder = #expect(throws: ImageError.self) { try ImageDecoder.decode(contentsOf: dir) }
        #expect(folder?.message.contains("is a directory") == true)
    }

    /// A HEIC decode cannot be stopped part-way, so its pixels are bounded before it starts: one
    /// pixel over the budget is refused from the header, the budget itself decodes.
    @Test func heicImagesOverTheirPixelBudgetAreRefused() throws {
        let path = Fixtures.path("heic", "grid.heic")
        let error = #expect(throws: ImageError.self) {
            try ImageDecoder.decode(contentsOf: path, options: DecodeOptions(budget: DecodeBudget(heifPixels: 180 * 100 - 1)))
        }
        #expect(error?.code == .tooLarge)
        #expect(error?.message.contains("decoded up to 17999 pixels") == true, "\(String(describing: error))")
        let image = try ImageDecoder.decode(contentsOf: path, options: DecodeOptions(budget: DecodeBudget(heifPixels: 180 * 100)))
        #expect(image.gray.width == 180 && image.gray.height == 100)
        // The default admits a 40-MP HEIC, not a 48-MP one.
        #expect(DecodeBudget().heifPixels == 40_000_000)
    }

    /// The start of a progressive JPEG: a quantisation table, the frame (`components` of them, the
    /// first sampled `sampling`, the others 1×1), a DC table and its first scan, and no more data.
    static func progressiveHead(width: Int, height: Int, components: Int, sampling: UInt8) -> [UInt8] {
        func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
            [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        }
        var frame: [UInt8] = [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), UInt8(components)]
        for c in 0..<components { frame += [UInt8(c + 1), c == 0 ? sampling : 0x11, 0] }
        var scan: [UInt8] = [UInt8(components)]
        for c in 0..<components { scan += [UInt8(c + 1), 0x00] }
        scan += [0, 0, 0]
        return [0xFF, 0xD8] + segment(0xDB, [0] + [UInt8](repeating: 1, count: 64)) + segment(0xC2, frame)
            + segment(0xC4, [0x00, 1] + [UInt8](repeating: 0, count: 15) + [0]) + segment(0xDA, scan) + [0x00, 0xFF, 0xD9]
    }

    /// libjpeg keeps a progressive JPEG's coefficients until its last scan: where they, the grey
    /// image and the file's bytes would outgrow twice the image the file holds (+ 24 MiB), the file
    /// is refused from its header; 4:2:0 colour never is, and without the limit all pass that check.
    @Test func progressiveJPEGsWhoseCoefficientsOutgrowTheirImageAreRefused() throws {
        func refusal(_ bytes: [UInt8], _ budget: DecodeBudget = DecodeBudget()) -> ImageError? {
            do {
                _ = try ImageDecoder.decode(bytes, options: DecodeOptions(budget: budget))
                return nil
            } catch {
                return error as? ImageError
            }
        }
        func byCoefficients(_ error: ImageError?) -> Bool { error?.code == .tooLarge && error?.message.contains("coefficients") == true }
        // Grey and 4:4:4 colour: 34 MP is over, 16 MP within, and over when its file takes 30 MB more.
        for components in [1, 3] {
            let over = refusal(Self.progressiveHead(width: 5831, height: 5831, components: components, sampling: 0x11))
            #expect(byCoefficients(over))
            // 729² blocks a component, 128 bytes each.
            #expect(over?.message.contains("keeps \(components == 1 ? 64 : 194) MiB") == true, "\(String(describing: over))")
            let within = Self.progressiveHead(width: 4000, height: 4000, components: components, sampling: 0x11)
            #expect(!byCoefficients(refusal(within)))
            #expect(byCoefficients(refusal(within + [UInt8](repeating: 0, count: 30_000_000))))
            let unlimited = DecodeBudget(progressiveMemoryPerImageByte: nil)
            #expect(!byCoefficients(refusal(Self.progressiveHead(width: 5831, height: 5831, components: components, sampling: 0x11), unlimited)))
        }
        // 4:2:0 colour at the pixel limit: 3 bytes a pixel of coefficients against 6 of image.
        #expect(!byCoefficients(refusal(Self.progressiveHead(width: 9999, height: 9999, components: 3, sampling: 0x22))))
        // The same frame as a baseline JPEG holds no coefficients.
        var baseline = Self.progressiveHead(width: 5831, height: 5831, components: 1, sampling: 0x11)
        let sof = try #require((0..<baseline.count - 1).first { baseline[$0] == 0xFF && baseline[$0 + 1] == 0xC2 })
        baseline[sof + 1] = 0xC0
        #expect(!byCoefficients(refusal(baseline)))
    }

    /// A WebP lossless image of `width`×`height` pixels all of colour (r, g, b): every prefix code has
    /// one symbol, so the pixels take no bits at all, whatever the size.
    static func flatLosslessWebP(width: Int, height: Int, r: UInt8, g: UInt8, b: UInt8) -> [UInt8] {
        var bytes: [UInt8] = [0x2F]
        var bits = 0, count = 0
        func put(_ value: Int, _ n: Int) {
            bits |= value << count
            count += n
            while count >= 8 {
                bytes.append(UInt8(bits & 0xFF))
                bits >>= 8
                count -= 8
            }
        }
        put(width - 1, 14)
        put(height - 1, 14)
        put(0, 1)  // no alpha
        put(0, 3)  // version 0
        put(0, 1)  // no transform
        put(0, 1)  // no colour cache
        put(0, 1)  // no meta prefix codes
        // Green, red, blue and alpha: one 8-bit symbol each; distance: symbol 0.
        for symbol in [Int(g), Int(r), Int(b), 255] {
            put(1, 1)
            put(0, 1)
            put(1, 1)
            put(symbol, 8)
        }
        put(1, 1)
        put(0, 1)
        put(0, 1)
        put(0, 1)
        if count > 0 { bytes.append(UInt8(bits & 0xFF)) }
        if bytes.count % 2 == 1 { bytes.append(0) }
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        return Array("RIFF".utf8) + le32(bytes.count + 12) + Array("WEBPVP8L".utf8) + le32(bytes.count) + bytes
    }

    /// A large lossless WebP's grey comes from libwebp's luma (memory), within a level of the exact
    /// luminance that smaller ones give.
    @Test func largeLosslessWebPsGiveTheirGreyFromLuma() throws {
        for (r, g, b) in [(200, 100, 50), (0, 0, 0), (255, 255, 255), (12, 240, 77)] as [(UInt8, UInt8, UInt8)] {
            let exact = Int(Luma.bt601(r, g, b))
            let small = try ImageDecoder.decode(Self.flatLosslessWebP(width: 4000, height: 4000, r: r, g: g, b: b))
            #expect(small.gray.width == 4000 && Int(small.gray.pixels[12345]) == exact)
            let large = try ImageDecoder.decode(Self.flatLosslessWebP(width: 4001, height: 4000, r: r, g: g, b: b))
            #expect(large.gray.width == 4001 && large.gray.height == 4000)
            for i in [0, 4001 * 1999 + 7, large.gray.count - 1] {
                #expect(abs(Int(large.gray.pixels[i]) - exact) <= 1, "(\(r), \(g), \(b)) at \(i): \(large.gray.pixels[i]) for \(exact)")
            }
        }
    }
}
