import SeerImage
import Testing

@testable import SeerQR

/// Micro QR Code: module grids written by another encoder (segno 1.6, `segno.make_micro`, one per
/// symbol type M1 to M4-Q) decode to their text; damaged ones within the correction capacity still
/// do, and beyond it give nothing.
@Suite struct MicroQRTests {
    struct Grid: Sendable, CustomTestStringConvertible {
        var text: String
        var designator: String
        var rows: [String]
        var testDescription: String { designator }
        var modules: [Bool] { rows.flatMap { $0.map { $0 == "#" } } }
    }

    static let grids: [Grid] = [
        Grid(text: "12345", designator: "M1", rows: [
            "#######.#.#",
            "#.....#.##.",
            "#.###.#.#..",
            "#.###.#....",
            "#.###.#.###",
            "#.....#..##",
            "#######.#..",
            ".........##",
            "##..###..##",
            ".#.#...##..",
            "####.....##",
        ]),
        Grid(text: "HELLO", designator: "M2-L", rows: [
            "#######.#.#.#",
            "#.....#...##.",
            "#.###.#.#.###",
            "#.###.#.#.###",
            "#.###.#.###..",
            "#.....#.....#",
            "#######.###.#",
            "...........#.",
            "##.#.#.######",
            ".#...#.#..#.#",
            "##.#.##..#..#",
            ".#.#..###..#.",
            "#.##...#.#...",
        ]),
        Grid(text: "12345678", designator: "M2-M", rows: [
            "#######.#.#.#",
            "#.....#.##...",
            "#.###.#.###.#",
            "#.###.#..##.#",
            "#.###.#..#...",
            "#.....#.#...#",
            "#######.....#",
            "..........###",
            "###..####....",
            ".###.........",
            "###..#....###",
            ".#.#.##..##..",
            "##..##.#.#..#",
        ]),
        Grid(text: "Seer 3", designator: "M3-L", rows: [
            "#######.#.#.#.#",
            "#.....#....##.#",
            "#.###.#.#######",
            "#.###.#.#.##.##",
            "#.###.#..#.####",
            "#.....#.#.##.#.",
            "#######..#####.",
            "..............#",
            "######...##.#.#",
            "..##..###.#.#.#",
            "#..#..#..#.####",
            "...#......#..#.",
            "#..###..######.",
            "...#.......#..#",
            "#...###..##.###",
        ]),
        Grid(text: "abc", designator: "M3-M", rows: [
            "#######.#.#.#.#",
            "#.....#...##.##",
            "#.###.#..#..###",
            "#.###.#..#..###",
            "#.###.#...###..",
            "#.....#.#.###..",
            "#######.#..###.",
            "............#.#",
            "#...##..##..#..",
            "..#..###..#.#.#",
            "#.########.##..",
            ".#.#...#..####.",
            "###.....#####..",
            ".#..#...#...###",
            "#..#.###.##.###",
        ]),
        Grid(text: "Micro QR 2026", designator: "M4-L", rows: [
            "#######.#.#.#.#.#",
            "#.....#.#...#.###",
            "#.###.#.#...#.###",
            "#.###.#...##..#..",
            "#.###.#.#####....",
            "#.....#.#.##.#.##",
            "#######....###.#.",
            "........##.#....#",
            "#..###.#.#..#.#.#",
            ".#.##.#...#.#.###",
            "#.#.##..##.##...#",
            ".###.#....##....#",
            "##.#####.######.#",
            ".##.##........##.",
            "###..#..###.#....",
            "..#.#..##.###.#.#",
            "###.#..###..###..",
        ]),
        Grid(text: "https://x.io", designator: "M4-M", rows: [
            "#######.#.#.#.#.#",
            "#.....#..#.#.#...",
            "#.###.#..#.#....#",
            "#.###.#..##.#..##",
            "#.###.#.#...###.#",
            "#.....#.....##...",
            "#######..##.....#",
            "............#..##",
            "#.#..#.#.####...#",
            "..#.#.#.##.......",
            "#.#..##...##...#.",
            "..###########.#.#",
            "#.#..#..#...##..#",
            "...##....#.##....",
            "###.#.....#..#...",
            ".##.#.#...#.###..",
            "#####.....###...#",
        ]),
        Grid(text: "0123456789", designator: "M4-Q", rows: [
            "#######.#.#.#.#.#",
            "#.....#...#.#.##.",
            "#.###.#..##.#....",
            "#.###.#.###.#####",
            "#.###.#..###..###",
            "#.....#.#..####.#",
            "#######..#....##.",
            "........###....##",
            "#.##...###.####.#",
            "...########.####.",
            "##.#..##.##.#..##",
            "..##.#.....##..##",
            "##..#..#.#.#.##..",
            ".###.#.#..###..#.",
            "###.#.###..#..#.#",
            ".#.##.....#..####",
            "##.###......###..",
        ]),
    ]

    @Test(arguments: grids)
    func decodes(_ grid: Grid) throws {
        let (decoded, type) = try #require(MicroQR.decode(grid.modules, size: grid.rows.count))
        #expect(String(decoding: decoded.stream.bytes, as: UTF8.self) == grid.text)
        #expect("M\(type.version)" == grid.designator.prefix(2))
        #expect(decoded.errorsCorrected == 0)
    }

    /// Flipping every module of whole data codewords: within the capacity the text comes back, one
    /// codeword more gives nothing (M1 detects errors only).
    @Test(arguments: grids)
    func damage(_ grid: Grid) throws {
        let n = grid.rows.count
        let (_, type) = try #require(MicroQR.decode(grid.modules, size: n))
        // The data modules in placement order, eight to a codeword.
        var order: [(Int, Int)] = []
        var upward = true
        var x = n - 1
        while x > 0 {
            for step in 0..<n {
                let y = upward ? n - 1 - step : step
                for dx in 0..<2 where x - dx > 0 && !MicroQR.isFunction(x - dx, y) { order.append((x - dx, y)) }
            }
            upward.toggle()
            x -= 2
        }
        func damaged(_ codewords: Int) -> [Bool] {
            var modules = grid.modules
            // Codewords from the end (check codewords are all 8 bits), every other one.
            for k in 0..<codewords {
                let start = order.count - 8 * (2 * k + 1)
                for (mx, my) in order[start..<(start + 8)] { modules[my * n + mx].toggle() }
            }
            return modules
        }
        if type.correctable > 0 {
            let fixed = try #require(MicroQR.decode(damaged(type.correctable), size: n))
            #expect(String(decoding: fixed.0.stream.bytes, as: UTF8.self) == grid.text)
            #expect(fixed.0.errorsCorrected == type.correctable)
        }
        if 2 * (type.correctable + 1) <= type.checkCodewords + type.dataCodewords - 1 {
            #expect(MicroQR.decode(damaged(type.correctable + 1), size: n).map { String(decoding: $0.0.stream.bytes, as: UTF8.self) } != grid.text)
        }
    }

    /// A grid drawn at 6 pixels a module in a 2-module quiet zone, as it is, mirrored, and light on
    /// dark, read from the image by the code reader.
    @Test(arguments: [grids[0], grids[3], grids[7]])
    func readFromImages(_ grid: Grid) throws {
        let n = grid.rows.count, scale = 6, side = (n + 4) * scale
        var plain = [UInt8](repeating: 255, count: side * side)
        for y in 0..<side {
            for x in 0..<side {
                let mx = x / scale - 2, my = y / scale - 2
                if mx >= 0, my >= 0, mx < n, my < n, grid.modules[my * n + mx] { plain[y * side + x] = 0 }
            }
        }
        var mirrored = plain
        for y in 0..<side { for x in 0..<side { mirrored[y * side + x] = plain[y * side + side - 1 - x] } }
        let inverted = plain.map { 255 - $0 }
        let reader = CodeReader.forTests(symbologies: [.microqr])
        for pixels in [plain, mirrored, inverted] {
            let symbols = reader.read(GrayImage(width: side, height: side, pixels: pixels))
            #expect(symbols.map(\.symbology) == [.microqr])
            #expect(symbols.first?.text == grid.text)
        }
    }
    /// Grids at one pixel a module (with a margin of eight pixels, as a symbol cut from a larger
    /// picture): the finder's rings fall between pixels, and the patch round it is read again
    /// enlarged. Read with every symbology. (M1, the smallest, is not read at this size.)
    @Test(arguments: grids.dropFirst())
    func readAtOnePixelAModule(_ grid: Grid) throws {
        let n = grid.rows.count, margin = 8, side = n + 2 * margin
        var pixels = [UInt8](repeating: 255, count: side * side)
        for my in 0..<n { for mx in 0..<n where grid.modules[my * n + mx] { pixels[(my + margin) * side + mx + margin] = 0 } }
        let symbols = CodeReader.forTests(symbologies: Set(Symbology.allCases)).read(GrayImage(width: side, height: side, pixels: pixels))
        #expect(symbols.map(\.symbology) == [.microqr])
        #expect(symbols.first?.text == grid.text)
    }

    /// A sheet of 36 symbols side by side, each in its 2-module quiet zone (as labels on a reel or a
    /// panel of parts): each symbol's single finder also forms QR finder triples with its neighbours',
    /// and those must not use up the time the symbols need. Read with every symbology.
    @Test func aSheetOfSymbolsIsReadWhole() {
        let scale = 5, cell = 21 * scale, columns = 6
        let side = cell * columns
        var pixels = [UInt8](repeating: 255, count: side * side)
        var expected: [String] = []
        for k in 0..<(columns * columns) {
            let grid = Self.grids[k % Self.grids.count]
            expected.append(grid.text)
            let n = grid.rows.count
            let x0 = (k % columns) * cell + 2 * scale, y0 = (k / columns) * cell + 2 * scale
            for my in 0..<n {
                for mx in 0..<n where grid.modules[my * n + mx] {
                    for y in 0..<scale { for x in 0..<scale { pixels[(y0 + my * scale + y) * side + x0 + mx * scale + x] = 0 } }
                }
            }
        }
        let symbols = CodeReader.forTests(symbologies: Set(Symbology.allCases)).read(GrayImage(width: side, height: side, pixels: pixels))
        #expect(symbols.allSatisfy { $0.symbology == .microqr })
        #expect(symbols.compactMap(\.text).sorted() == expected.sorted())
    }
}
