/// Just enough of a HEIF file's box structure (ISO/IEC 23008-12 over ISO-BMFF) to find how the primary
/// image is turned: its `irot` (rotation) and `imir` (mirror) properties. libheif applies them when it
/// decodes; this tells the orientation they amount to, for `ImageInfo` and for `applyOrientation`
/// off. Bounded: never reads outside the bytes, never follows more than a fixed number of boxes.
enum HEIFBoxes {
    /// The transformation the primary image's `irot`/`imir` properties describe, in the order they
    /// are listed, as the EXIF orientation that shows the same picture; `nil` when the image has
    /// neither (or the boxes cannot be read).
    static func orientation(_ data: UnsafeRawBufferPointer) -> Orientation? {
        guard let meta = child("meta", in: data, from: 0, to: data.count, fullBox: false) else { return nil }
        let body = meta.start + 4  // FullBox: version and flags
        guard body <= meta.end,
            let pitm = child("pitm", in: data, from: body, to: meta.end, fullBox: false),
            let iprp = child("iprp", in: data, from: body, to: meta.end, fullBox: false),
            let ipco = child("ipco", in: data, from: iprp.start, to: iprp.end, fullBox: false),
            let ipma = child("ipma", in: data, from: iprp.start, to: iprp.end, fullBox: false)
        else { return nil }
        let reader = Reader(data: data)
        guard let pitmVersion = reader.u8(pitm.start),
            let primary = pitmVersion == 0 ? reader.u16(pitm.start + 4) : reader.u32(pitm.start + 4)
        else { return nil }

        // The property boxes, numbered from 1 in the order of ipco.
        var properties: [(type: String, start: Int, end: Int)] = []
        var at = ipco.start
        while at < ipco.end, properties.count < 4096, let box = reader.box(at, limit: ipco.end) {
            properties.append((box.type, box.start, box.end))
            at = box.end
        }

        // The associations of the primary item, in order.
        guard let version = reader.u8(ipma.start), let flags = reader.u8(ipma.start + 3),
            let entries = reader.u32(ipma.start + 4)
        else { return nil }
        var indices: [Int] = []
        at = ipma.start + 8
        for _ in 0..<min(entries, 1 << 16) {
            guard let item = version < 1 ? reader.u16(at) : reader.u32(at) else { return nil }
            at += version < 1 ? 2 : 4
            guard let count = reader.u8(at) else { return nil }
            at += 1
            var found: [Int] = []
            for _ in 0..<count {
                if flags & 1 != 0 {
                    guard let v = reader.u16(at) else { return nil }
                    found.append(v & 0x7FFF)
                    at += 2
                } else {
                    guard let v = reader.u8(at) else { return nil }
                    found.append(v & 0x7F)
                    at += 1
                }
            }
            if item == primary {
                indices = found
                break
            }
        }

        var turn = Orientation.up
        var seen = false
        for index in indices where index >= 1 && index <= properties.count {
            let property = properties[index - 1]
            switch property.type {
            case "irot":
                guard let angle = reader.u8(property.start) else { return nil }
                // Anti-clockwise in quarter turns.
                turn = turn.then(Self.counterClockwise(angle & 3))
                seen = true
            case "imir":
                guard let axis = reader.u8(property.start) else { return nil }
                // libheif 1.15, which turns the pixels, swaps top and bottom for axis 0 and left and
                // right for axis 1; the orientation reported is the one its pixels show.
                turn = turn.then(axis & 1 == 0 ? .downMirrored : .upMirrored)
                seen = true
            default: continue
            }
        }
        return seen ? turn : nil
    }

    /// Checks every HEVC configuration box (`hvcC`) in the item properties: its parameter-set arrays
    /// must fill the box exactly. libheif 1.15 reads past a parameter set whose length overruns the
    /// box and can then crash while decoding, so such a file is refused before libheif sees it.
    /// Returns a description of the first fault, or `nil` when every box is sound (or there is none).
    static func hvcCFault(_ data: UnsafeRawBufferPointer) -> String? {
        guard let meta = child("meta", in: data, from: 0, to: data.count, fullBox: false),
            meta.start + 4 <= meta.end,
            let iprp = child("iprp", in: data, from: meta.start + 4, to: meta.end, fullBox: false),
            let ipco = child("ipco", in: data, from: iprp.start, to: iprp.end, fullBox: false)
        else { return nil }
        let reader = Reader(data: data)
        var at = ipco.start
        var count = 0
        while at < ipco.end, count < 4096, let box = reader.box(at, limit: ipco.end) {
            at = box.end
            count += 1
            guard box.type == "hvcC" else { continue }
            // 22 bytes of fixed fields, then the number of arrays.
            guard let arrays = reader.u8(box.start + 22), box.start + 23 <= box.end else {
                return "an HEVC configuration box is too short"
            }
            var p = box.start + 23
            for _ in 0..<arrays {
                guard p + 3 <= box.end, let units = reader.u16(p + 1) else {
                    return "an HEVC configuration box ends inside its parameter sets"
                }
                p += 3
                for _ in 0..<units {
                    guard p + 2 <= box.end, let length = reader.u16(p), length >= 2, p + 2 + length <= box.end else {
                        return "an HEVC parameter set's length runs past its configuration box"
                    }
                    p += 2 + length
                }
            }
            if p != box.end { return "an HEVC configuration box holds \(box.end - p) bytes after its parameter sets" }
        }
        return nil
    }

    /// Checks the item references (`iref`) that decoding follows: a derived image (`dimg`: grid,
    /// overlay, identity) decodes the items it refers to, and an image decodes its auxiliary images
    /// (`auxl`: alpha, depth). libheif 1.15 follows them without keeping track, so a cycle (a grid
    /// whose alpha plane is made of the grid itself) recurses until it runs out of threads or stack
    /// and the process dies. Returns a description of the first fault: an item that refers to itself,
    /// a cycle, or a chain deeper than any real file needs; `nil` when the references are sound.
    static func referenceFault(_ data: UnsafeRawBufferPointer) -> String? {
        // A box that declares more than its parent holds is read to the parent's end here: a
        // reader more forgiving than this walk must not find references this walk missed.
        guard let meta = child("meta", in: data, from: 0, to: data.count, fullBox: false, clamped: true),
            meta.start + 4 <= meta.end,
            let iref = child("iref", in: data, from: meta.start + 4, to: meta.end, fullBox: false, clamped: true)
        else { return nil }
        // Edges from an item to the items its decoding needs.
        var needs: [Int: [Int]] = [:]
        var selfReference: String?
        walkReferences(data, iref: iref) { type, from, to in
            if to == from {
                selfReference = "item \(from) refers to itself (\(type))"
                return false
            }
            switch type {
            case "dimg": needs[from, default: []].append(to)
            case "auxl": needs[to, default: []].append(from)
            default: break
            }
            return true
        }
        if let selfReference { return selfReference }

        // Depth-first from every item, without recursion: 1 on the current path, 2 done. A done
        // item keeps the length of the longest chain of references below it, so a chain reached
        // from its top after its lower part was walked from another root is still measured whole.
        var state: [Int: UInt8] = [:]
        var below: [Int: Int] = [:]
        for root in needs.keys.sorted() where state[root] == nil {
            var path: [(item: Int, next: Int)] = [(root, 0)]
            state[root] = 1
            while let top = path.last {
                let children = needs[top.item] ?? []
                if top.next == children.count {
                    state[top.item] = 2
                    below[top.item] = children.map { 1 + (below[$0] ?? 0) }.max() ?? 0
                    path.removeLast()
                    continue
                }
                path[path.count - 1].next += 1
                let child = children[top.next]
                switch state[child] {
                case 1: return "the item references form a cycle through item \(child)"
                case 2:
                    if path.count + (below[child] ?? 0) > deepestReferences { return tooDeep }
                default:
                    if path.count > deepestReferences { return tooDeep }
                    state[child] = 1
                    path.append((child, 0))
                }
            }
        }
        return nil
    }

    /// The longest chain of item references (`dimg`, `auxl`) decoding may follow: a grid of tiles
    /// is 1, its alpha plane made of a grid 2. Real files need 2 or 3.
    static let deepestReferences = 8
    private static let tooDeep = "the item references are nested more than \(deepestReferences) levels deep"

    /// Checks every grid item (`grid`, ISO/IEC 23008-12 6.6.2.3) against its tiles: as many tiles
    /// as rows × columns, all of one size (their `ispe`), none coded smaller than that size, and
    /// together at least as large as the output the grid declares (the format crops tiles at the
    /// right and bottom edges, it has no fill). libheif 1.15 allocates the declared output and
    /// pastes the tiles in without checking that they cover it, so the rest of the picture would be
    /// whatever memory held. Returns a description of the first fault; `nil` when every grid is sound.
    static func gridFault(_ data: UnsafeRawBufferPointer) -> String? {
        guard let meta = child("meta", in: data, from: 0, to: data.count, fullBox: false), meta.start + 4 <= meta.end else {
            return nil
        }
        let types = itemTypes(data, meta: meta)
        let grids = Set(types.filter { $0.value == "grid" }.keys)
        guard !grids.isEmpty else { return nil }
        let tiles = references(data, meta: meta, type: "dimg")
        let properties = itemProperties(data, meta: meta)
        let reader = Reader(data: data)
        func ispe(_ item: Int) -> (width: Int, height: Int)? {
            guard let box = properties[item]?.first(where: { $0.type == "ispe" }),
                let w = reader.u32(box.start + 4), let h = reader.u32(box.start + 8), box.start + 12 <= box.end
            else { return nil }
            return (w, h)
        }
        func coded(_ item: Int) -> (width: Int, height: Int)? {
            guard let box = properties[item]?.first(where: { $0.type == "hvcC" }) else { return nil }
            return spsSize(data, box.start, box.end)
        }
        let bytes = itemBytes(data, meta: meta, wanted: grids)
        for grid in grids.sorted() {
            // ImageGrid: version, flags (bit 0: 32-bit sizes), rows - 1, columns - 1, width, height.
            guard let b = bytes[grid], b.count >= 8 else { return "grid item \(grid) has no grid description" }
            let rows = Int(b[2]) + 1, columns = Int(b[3]) + 1
            let width: Int, height: Int
            if b[1] & 1 == 0 {
                width = Int(b[4]) << 8 | Int(b[5])
                height = Int(b[6]) << 8 | Int(b[7])
            } else {
                guard b.count >= 12 else { return "grid item \(grid) has a short grid description" }
                width = Int(b[4]) << 24 | Int(b[5]) << 16 | Int(b[6]) << 8 | Int(b[7])
                height = Int(b[8]) << 24 | Int(b[9]) << 16 | Int(b[10]) << 8 | Int(b[11])
            }
            let list = tiles[grid] ?? []
            guard list.count == rows * columns else {
                return "grid item \(grid) of \(rows)×\(columns) tiles refers to \(list.count) tiles"
            }
            guard let first = list.first, let size = ispe(first), size.width > 0, size.height > 0 else {
                return "a tile of grid item \(grid) has no size (ispe)"
            }
            for tile in list {
                guard let other = ispe(tile), other == size else {
                    return "the tiles of grid item \(grid) differ in size"
                }
                if types[tile] == "hvc1", let picture = coded(tile), picture.width < size.width || picture.height < size.height {
                    return "tile \(tile) is coded at \(picture.width)×\(picture.height), smaller than its \(size.width)×\(size.height)"
                }
            }
            if columns * size.width < width || rows * size.height < height {
                return "grid item \(grid) declares a \(width)×\(height) output; its \(rows)×\(columns) tiles of \(size.width)×\(size.height) cover only \(columns * size.width)×\(rows * size.height)"
            }
        }
        return nil
    }

    /// Each item's type (`iinf`: `infe` version 2 or 3).
    private static func itemTypes(_ data: UnsafeRawBufferPointer, meta: (start: Int, end: Int)) -> [Int: String] {
        let reader = Reader(data: data)
        var types: [Int: String] = [:]
        guard let iinf = child("iinf", in: data, from: meta.start + 4, to: meta.end, fullBox: false), let v = reader.u8(iinf.start)
        else { return types }
        var at = iinf.start + (v == 0 ? 6 : 8)
        var count = 0
        while at < iinf.end, count < 1 << 16, let infe = reader.box(at, limit: iinf.end) {
            count += 1
            at = infe.end
            guard infe.type == "infe", let version = reader.u8(infe.start), version >= 2 else { continue }
            let idSize = version == 2 ? 2 : 4
            guard let id = idSize == 2 ? reader.u16(infe.start + 4) : reader.u32(infe.start + 4),
                infe.start + 4 + idSize + 2 + 4 <= infe.end
            else { continue }
            let typeAt = infe.start + 4 + idSize + 2
            types[id] = String(decoding: UnsafeRawBufferPointer(rebasing: data[typeAt..<(typeAt + 4)]), as: UTF8.self)
        }
        return types
    }

    /// The references of one type (`iref`), from each item to the items it lists, in order.
    private static func references(_ data: UnsafeRawBufferPointer, meta: (start: Int, end: Int), type wanted: String) -> [Int: [Int]] {
        guard let iref = child("iref", in: data, from: meta.start + 4, to: meta.end, fullBox: false) else { return [:] }
        var found: [Int: [Int]] = [:]
        walkReferences(data, iref: iref) { type, from, to in
            if type == wanted { found[from, default: []].append(to) }
            return true
        }
        return found
    }

    /// Walks the references of `iref`, (type, from, to) for each item referred to, until `visit`
    /// returns false. The references are read one after the other as libheif reads them: a box
    /// header, then the fields, whatever size the header declares (libheif does not skip by it, so
    /// neither may this walk).
    private static func walkReferences(
        _ data: UnsafeRawBufferPointer, iref: (start: Int, end: Int), _ visit: (String, Int, Int) -> Bool
    ) {
        let reader = Reader(data: data)
        guard let version = reader.u8(iref.start) else { return }
        let idSize = version == 0 ? 2 : 4
        func id(_ at: Int) -> Int? { idSize == 2 ? reader.u16(at) : reader.u32(at) }
        var at = iref.start + 4
        var entries = 0
        while at + 8 <= iref.end, entries < 4096, let size = reader.u32(at) {
            let type = String(decoding: UnsafeRawBufferPointer(rebasing: data[(at + 4)..<(at + 8)]), as: UTF8.self)
            var p = at + 8 + (size == 1 ? 8 : 0) + (type == "uuid" ? 16 : 0)
            guard p + idSize + 2 <= iref.end, let from = id(p), let count = reader.u16(p + idSize) else { break }
            p += idSize + 2
            entries += 1
            for _ in 0..<count {
                guard p + idSize <= iref.end, let to = id(p) else { break }
                p += idSize
                if !visit(type, from, to) { return }
            }
            at = p
        }
    }

    /// Each item's properties (`ipma` into `ipco`), in the order they are associated.
    private static func itemProperties(_ data: UnsafeRawBufferPointer, meta: (start: Int, end: Int))
        -> [Int: [(type: String, start: Int, end: Int)]]
    {
        var found: [Int: [(type: String, start: Int, end: Int)]] = [:]
        for (item, property) in propertyAssociations(data, meta: meta) { found[item, default: []].append(property) }
        return found
    }

    /// The property associations (`ipma` into `ipco`) as they stand: each item with each property
    /// it names, as far as they can be read.
    private static func propertyAssociations(_ data: UnsafeRawBufferPointer, meta: (start: Int, end: Int))
        -> [(item: Int, property: (type: String, start: Int, end: Int))]
    {
        guard let iprp = child("iprp", in: data, from: meta.start + 4, to: meta.end, fullBox: false),
            let ipco = child("ipco", in: data, from: iprp.start, to: iprp.end, fullBox: false),
            let ipma = child("ipma", in: data, from: iprp.start, to: iprp.end, fullBox: false)
        else { return [] }
        let reader = Reader(data: data)
        var properties: [(type: String, start: Int, end: Int)] = []
        var at = ipco.start
        while at < ipco.end, properties.count < 4096, let box = reader.box(at, limit: ipco.end) {
            properties.append((box.type, box.start, box.end))
            at = box.end
        }
        guard let version = reader.u8(ipma.start), let flags = reader.u8(ipma.start + 3),
            let entries = reader.u32(ipma.start + 4)
        else { return [] }
        var found: [(item: Int, property: (type: String, start: Int, end: Int))] = []
        at = ipma.start + 8
        for _ in 0..<min(entries, 1 << 16) {
            guard let item = version < 1 ? reader.u16(at) : reader.u32(at) else { break }
            at += version < 1 ? 2 : 4
            guard let count = reader.u8(at) else { break }
            at += 1
            for _ in 0..<count {
                let index: Int
                if flags & 1 != 0 {
                    guard let v = reader.u16(at) else { return found }
                    index = v & 0x7FFF
                    at += 2
                } else {
                    guard let v = reader.u8(at) else { return found }
                    index = v & 0x7F
                    at += 1
                }
                if index >= 1, index <= properties.count { found.append((item, properties[index - 1])) }
            }
        }
        return found
    }

    /// The data of the `wanted` items (`iloc`, in the file or in `idat`), at most 64 MB in all.
    private static func itemBytes(_ data: UnsafeRawBufferPointer, meta: (start: Int, end: Int), wanted: Set<Int>) -> [Int: [UInt8]] {
        let reader = Reader(data: data)
        let body = meta.start + 4
        guard let iloc = child("iloc", in: data, from: body, to: meta.end, fullBox: false),
            let version = reader.u8(iloc.start), let sizes1 = reader.u8(iloc.start + 4), let sizes2 = reader.u8(iloc.start + 5)
        else { return [:] }
        let idat = child("idat", in: data, from: body, to: meta.end, fullBox: false)
        let offsetSize = sizes1 >> 4, lengthSize = sizes1 & 15, baseSize = sizes2 >> 4
        let indexSize = version == 1 || version == 2 ? sizes2 & 15 : 0
        var at = iloc.start + 6
        func read(_ n: Int) -> Int? {
            var value = 0
            for _ in 0..<n {
                guard let b = reader.u8(at) else { return nil }
                value = value << 8 | b
                at += 1
                if value > Int(Int32.max) { return nil }
            }
            return value
        }
        var found: [Int: [UInt8]] = [:]
        guard let items = read(version < 2 ? 2 : 4) else { return found }
        var scanned = 0
        for _ in 0..<min(items, 1 << 16) {
            guard let id = read(version < 2 ? 2 : 4) else { break }
            var method = 0
            if version == 1 || version == 2 {
                guard let m = read(2) else { break }
                method = m & 15
            }
            guard read(2) != nil, let base = read(baseSize), let extents = read(2) else { break }
            var bytes: [UInt8] = []
            for _ in 0..<extents {
                guard read(indexSize) != nil, let offset = read(offsetSize), let length = read(lengthSize) else { return found }
                guard wanted.contains(id), scanned < 64 << 20 else { continue }
                let start = (method == 1 ? (idat?.start ?? 0) : 0) + base + offset
                let end = length == 0 ? data.count : start + length
                guard start >= 0, start <= end, end <= data.count else { continue }
                bytes += UnsafeRawBufferPointer(rebasing: data[start..<end])
                scanned += end - start
            }
            if wanted.contains(id), found[id] == nil { found[id] = bytes }
        }
        return found
    }

    /// The picture size each HEVC-coded item's sequence parameter set declares, one entry per item
    /// that has an `hvcC` property (grid tiles, the image itself, thumbnails, alpha planes). libheif
    /// 1.15 decodes whatever size the parameter set says before it compares with the boxes, so a
    /// 1 KB file can ask for a 900-megapixel decode; these sizes let the caller refuse it first.
    /// `nil` for an item whose parameter set cannot be read.
    static func codedSizes(_ data: UnsafeRawBufferPointer) -> [(width: Int, height: Int)?] {
        guard let meta = child("meta", in: data, from: 0, to: data.count, fullBox: false), meta.start + 4 <= meta.end else { return [] }
        // The sizes in the coded data and the grids are taken whatever the properties hold: a damaged
        // property association must not hide a grid that asks for gigapixels.
        return propertySizes(data, meta: meta) + inBandSizes(data, meta: meta)
    }

    /// The sizes of the parameter sets in the `hvcC` properties, one entry per association.
    private static func propertySizes(_ data: UnsafeRawBufferPointer, meta: (start: Int, end: Int)) -> [(width: Int, height: Int)?] {
        var cache: [Int: (width: Int, height: Int)?] = [:]
        return propertyAssociations(data, meta: meta).filter { $0.property.type == "hvcC" }.map { association in
            let property = association.property
            if cache[property.start] == nil { cache[property.start] = spsSize(data, property.start, property.end) }
            return cache[property.start]!
        }
    }

    /// Sizes of sequence parameter sets carried in the coded data of `hvc1` items themselves (a
    /// decoder takes those too), and the output sizes `grid` items declare (libheif allocates a grid's
    /// output at that size, whatever its `ispe` says).
    private static func inBandSizes(_ data: UnsafeRawBufferPointer, meta: (start: Int, end: Int)) -> [(width: Int, height: Int)?] {
        let reader = Reader(data: data)
        let body = meta.start + 4
        // The hvc1 items (iinf: infe version 2 or 3).
        var hevcItems: Set<Int> = [], gridItems: Set<Int> = []
        if let iinf = child("iinf", in: data, from: body, to: meta.end, fullBox: false), let v = reader.u8(iinf.start) {
            var at = iinf.start + (v == 0 ? 6 : 8)
            var count = 0
            while at < iinf.end, count < 1 << 16, let infe = reader.box(at, limit: iinf.end) {
                count += 1
                at = infe.end
                guard infe.type == "infe", let version = reader.u8(infe.start), version >= 2 else { continue }
                let idSize = version == 2 ? 2 : 4
                guard let id = idSize == 2 ? reader.u16(infe.start + 4) : reader.u32(infe.start + 4),
                    infe.start + 4 + idSize + 2 + 4 <= infe.end
                else { continue }
                let typeAt = infe.start + 4 + idSize + 2
                let type = String(decoding: UnsafeRawBufferPointer(rebasing: data[typeAt..<(typeAt + 4)]), as: UTF8.self)
                if type == "hvc1" { hevcItems.insert(id) }
                if type == "grid" { gridItems.insert(id) }
            }
        }
        let wanted = hevcItems.union(gridItems)
        guard !wanted.isEmpty, let iloc = child("iloc", in: data, from: body, to: meta.end, fullBox: false),
            let version = reader.u8(iloc.start), let sizes1 = reader.u8(iloc.start + 4), let sizes2 = reader.u8(iloc.start + 5)
        else { return [] }
        let idat = child("idat", in: data, from: body, to: meta.end, fullBox: false)
        let offsetSize = sizes1 >> 4, lengthSize = sizes1 & 15, baseSize = sizes2 >> 4
        let indexSize = version == 1 || version == 2 ? sizes2 & 15 : 0
        var at = iloc.start + 6
        func read(_ n: Int) -> Int? {
            var value = 0
            for _ in 0..<n {
                guard let b = reader.u8(at) else { return nil }
                value = value << 8 | b
                at += 1
                if value > Int(Int32.max) { return nil }
            }
            return value
        }
        guard let items = read(version < 2 ? 2 : 4) else { return [] }
        var found: [(width: Int, height: Int)?] = []
        var scanned = 0
        for _ in 0..<min(items, 1 << 16) {
            guard let id = read(version < 2 ? 2 : 4) else { break }
            var method = 0
            if version == 1 || version == 2 { guard let m = read(2) else { break }; method = m & 15 }
            guard read(2) != nil, let base = read(baseSize), let extents = read(2) else { break }
            var bytes: [UInt8] = []
            for _ in 0..<extents {
                guard read(indexSize) != nil, let offset = read(offsetSize), let length = read(lengthSize) else { return found }
                guard wanted.contains(id), scanned < 64 << 20 else { continue }
                let start = (method == 1 ? (idat?.start ?? 0) : 0) + base + offset
                let end = length == 0 ? data.count : start + length
                guard start >= 0, start <= end, end <= data.count else { continue }
                bytes += UnsafeRawBufferPointer(rebasing: data[start..<end])
                scanned += end - start
            }
            if gridItems.contains(id) {
                // ImageGrid: version, flags (bit 0: 32-bit sizes), rows - 1, columns - 1, width, height.
                guard bytes.count >= 8 else { found.append(nil); continue }
                if bytes[1] & 1 == 0 {
                    found.append((Int(bytes[4]) << 8 | Int(bytes[5]), Int(bytes[6]) << 8 | Int(bytes[7])))
                } else if bytes.count >= 12 {
                    let w = Int(bytes[4]) << 24 | Int(bytes[5]) << 16 | Int(bytes[6]) << 8 | Int(bytes[7])
                    let h = Int(bytes[8]) << 24 | Int(bytes[9]) << 16 | Int(bytes[10]) << 8 | Int(bytes[11])
                    found.append((w, h))
                } else {
                    found.append(nil)
                }
                continue
            }
            guard hevcItems.contains(id) else { continue }
            // Length-prefixed NAL units (4-byte lengths, as HEIF writers use).
            var p = 0
            while p + 4 <= bytes.count {
                let length = Int(bytes[p]) << 24 | Int(bytes[p + 1]) << 16 | Int(bytes[p + 2]) << 8 | Int(bytes[p + 3])
                guard length >= 2, p + 4 + length <= bytes.count else { break }
                if (bytes[p + 4] >> 1) & 0x3F == 33 {
                    found.append(bytes.withUnsafeBytes { parseSPS(UnsafeRawBufferPointer(rebasing: $0[(p + 4)..<(p + 4 + length)])) })
                }
                p += 4 + length
            }
        }
        return found
    }

    /// pic_width/height_in_luma_samples of the first SPS in an hvcC box body (ITU-T H.265 7.3.2.2).
    private static func spsSize(_ data: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> (width: Int, height: Int)? {
        let reader = Reader(data: data)
        guard let arrays = reader.u8(start + 22) else { return nil }
        var p = start + 23
        for _ in 0..<arrays {
            guard let type = reader.u8(p), let units = reader.u16(p + 1) else { return nil }
            p += 3
            for _ in 0..<units {
                guard let length = reader.u16(p), p + 2 + length <= end else { return nil }
                if type & 0x3F == 33 {  // SPS
                    return parseSPS(UnsafeRawBufferPointer(rebasing: data[(p + 2)..<(p + 2 + length)]))
                }
                p += 2 + length
            }
        }
        return nil
    }

    private static func parseSPS(_ nal: UnsafeRawBufferPointer) -> (width: Int, height: Int)? {
        // The RBSP: after the 2-byte NAL header, emulation-prevention bytes (00 00 03) removed.
        var rbsp: [UInt8] = []
        rbsp.reserveCapacity(min(nal.count, 64))
        var zeros = 0
        for byte in nal.dropFirst(2).prefix(256) {
            if zeros >= 2, byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            rbsp.append(byte)
        }
        var bit = 0
        func read(_ n: Int) -> Int? {
            var value = 0
            for _ in 0..<n {
                guard bit / 8 < rbsp.count else { return nil }
                value = value << 1 | Int(rbsp[bit / 8] >> (7 - UInt8(bit % 8)) & 1)
                bit += 1
            }
            return value
        }
        func ue() -> Int? {
            var leading = 0
            while true {
                guard let b = read(1) else { return nil }
                if b == 1 { break }
                leading += 1
                if leading > 31 { return nil }
            }
            guard let rest = read(leading) else { return nil }
            return (1 << leading) - 1 + rest
        }
        guard read(4) != nil, let maxSubLayersMinus1 = read(3), read(1) != nil else { return nil }
        guard read(96) != nil else { return nil }  // general profile, tier and level
        var profilePresent: [Bool] = [], levelPresent: [Bool] = []
        for _ in 0..<maxSubLayersMinus1 {
            guard let p = read(1), let l = read(1) else { return nil }
            profilePresent.append(p == 1)
            levelPresent.append(l == 1)
        }
        if maxSubLayersMinus1 > 0 {
            for _ in maxSubLayersMinus1..<8 { guard read(2) != nil else { return nil } }
        }
        for i in 0..<maxSubLayersMinus1 {
            if profilePresent[i] { guard read(88) != nil else { return nil } }
            if levelPresent[i] { guard read(8) != nil else { return nil } }
        }
        guard ue() != nil, let chroma = ue() else { return nil }
        if chroma == 3 { guard read(1) != nil else { return nil } }
        guard let width = ue(), let height = ue() else { return nil }
        return (width, height)
    }

    private static func counterClockwise(_ quarters: Int) -> Orientation {
        switch quarters {
        case 1: .left
        case 2: .down
        case 3: .right
        default: .up
        }
    }

    /// The first box of `type` between `from` and `to`. With `clamped`, a box whose declared size
    /// runs past `to` ends at `to` (it is the last one either way).
    private static func child(_ type: String, in data: UnsafeRawBufferPointer, from: Int, to: Int, fullBox: Bool, clamped: Bool = false)
        -> (start: Int, end: Int)?
    {
        let reader = Reader(data: data)
        var at = from
        var count = 0
        while at < to, count < 4096 {
            guard let box = reader.box(at, limit: to) ?? (clamped ? reader.box(at, limit: 1 << 62).map { ($0.type, $0.start, to) } : nil),
                box.start <= to
            else { return nil }
            if box.type == type { return (box.start, box.end) }
            at = box.end
            count += 1
        }
        return nil
    }

    private struct Reader {
        let data: UnsafeRawBufferPointer

        func u8(_ at: Int) -> Int? { at >= 0 && at < data.count ? Int(data[at]) : nil }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= data.count else { return nil }
            return Int(data[at]) << 8 | Int(data[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let hi = u16(at), let lo = u16(at + 2) else { return nil }
            return hi << 16 | lo
        }
        func u64(_ at: Int) -> Int? {
            guard let hi = u32(at), let lo = u32(at + 4), hi < (1 << 31) else { return nil }
            return hi << 32 | lo
        }

        /// The box at `at`: its type and the range of its body. `nil` when it does not fit in `limit`.
        func box(_ at: Int, limit: Int) -> (type: String, start: Int, end: Int)? {
            guard let size32 = u32(at), at + 8 <= limit, at + 8 <= data.count else { return nil }
            let type = String(decoding: UnsafeRawBufferPointer(rebasing: data[(at + 4)..<(at + 8)]), as: UTF8.self)
            var header = 8, size = size32
            if size32 == 1 {
                guard let large = u64(at + 8) else { return nil }
                size = large
                header = 16
            } else if size32 == 0 {
                size = limit - at
            }
            guard size >= header, size <= limit - at else { return nil }
            return (type, at + header, at + size)
        }
    }
}

extension Orientation {
    /// The stored pixel position → displayed position map as a 2×2 integer matrix acting on (x, y)
    /// about the picture's centre, with y pointing down.
    fileprivate var matrix: (Int, Int, Int, Int) {
        switch self {
        case .up: (1, 0, 0, 1)
        case .upMirrored: (-1, 0, 0, 1)
        case .down: (-1, 0, 0, -1)
        case .downMirrored: (1, 0, 0, -1)
        case .leftMirrored: (0, 1, 1, 0)  // transpose
        case .right: (0, -1, 1, 0)  // a quarter turn clockwise
        case .rightMirrored: (0, -1, -1, 0)  // transverse
        case .left: (0, 1, -1, 0)  // a quarter turn anti-clockwise
        }
    }

    /// Showing the picture with `self`, then turning the result by `next`: one orientation.
    func then(_ next: Orientation) -> Orientation {
        let (a, b, c, d) = matrix, (e, f, g, h) = next.matrix
        let product = (e * a + f * c, e * b + f * d, g * a + h * c, g * b + h * d)
        return Orientation.allCases.first { $0.matrix == product } ?? .up
    }

    /// The orientation that undoes this one: showing with `self`, then `inverse`, gives the stored grid.
    var inverse: Orientation {
        Orientation.allCases.first { self.then($0) == .up } ?? .up
    }
}
