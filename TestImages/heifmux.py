"""A small HEIF writer for test files: takes HEVC-coded images that libheif's `heif-enc` made and
writes them into new HEIF files the way phones do and heif-enc cannot (libheif 1.15): a grid of tiles,
`irot`/`imir` transformations, an Exif item. Standard library only.

    from heifmux import coded_image, write_heif
    tile = coded_image(open("tile.heic", "rb").read())      # (hvcC box, width, height, data)
    write_heif("out.heic", [tile] * 4, grid=(2, 2, 120, 100), irot=1, imir=None, exif=b"MM\\0*...")
"""
import struct


def _boxes(data, start, end):
    at = start
    while at + 8 <= end:
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        header = 8
        if size == 1:
            size = struct.unpack(">Q", data[at + 8:at + 16])[0]
            header = 16
        elif size == 0:
            size = end - at
        yield kind.decode("latin1"), at, at + header, at + size
        at += size


def _child(data, start, end, kind):
    for k, box, body, stop in _boxes(data, start, end):
        if k == kind:
            return box, body, stop
    raise ValueError(f"no {kind} box")


def coded_image(data):
    """The first HEVC-coded item of a HEIF file: (its hvcC box bytes, width, height, its data)."""
    _, meta, meta_end = _child(data, 0, len(data), "meta")
    meta += 4
    _, iinf, iinf_end = _child(data, meta, meta_end, "iinf")
    version = data[iinf]
    first = iinf + 4 + (2 if version == 0 else 4)
    item = None
    for kind, box, body, stop in _boxes(data, first, iinf_end):
        # infe version 2: FullBox, item_ID (16), protection index (16), item_type
        item_id, _, item_type = struct.unpack(">HH4s", data[body + 4:body + 12])
        if item_type == b"hvc1":
            item = item_id
            break
    _, iloc, _ = _child(data, meta, meta_end, "iloc")
    version = data[iloc]
    sizes = data[iloc + 4]
    offset_size, length_size = sizes >> 4, sizes & 15
    base_size = data[iloc + 5] >> 4
    index_size = data[iloc + 5] & 15 if version in (1, 2) else 0
    at = iloc + 6
    count = struct.unpack(">H", data[at:at + 2])[0] if version < 2 else struct.unpack(">I", data[at:at + 4])[0]
    at += 2 if version < 2 else 4

    def read(n):
        nonlocal at
        value = int.from_bytes(data[at:at + n], "big") if n else 0
        at += n
        return value

    coded = None
    for _ in range(count):
        item_id = read(2 if version < 2 else 4)
        if version in (1, 2):
            read(2)  # construction method
        read(2)  # data reference index
        base = read(base_size)
        extents = []
        for _ in range(read(2)):
            read(index_size)
            offset = read(offset_size)
            length = read(length_size)
            extents.append(data[base + offset:base + offset + length])
        if item_id == item:
            coded = b"".join(extents)
    _, iprp, iprp_end = _child(data, meta, meta_end, "iprp")
    _, ipco, ipco_end = _child(data, iprp, iprp_end, "ipco")
    properties = [(k, data[box:stop], body) for k, box, body, stop in _boxes(data, ipco, ipco_end)]
    _, ipma, _ = _child(data, iprp, iprp_end, "ipma")
    version, flags = data[ipma], data[ipma + 3]
    at = ipma + 4
    hvcc = width = height = None
    for _ in range(read(4)):
        item_id = read(2 if version < 1 else 4)
        for _ in range(read(1)):
            index = read(2) & 0x7FFF if flags & 1 else read(1) & 0x7F
            if item_id != item:
                continue
            kind, box, body = properties[index - 1]
            if kind == "hvcC":
                hvcc = box
            elif kind == "ispe":
                width, height = struct.unpack(">II", data[body + 4:body + 12])
    return hvcc, width, height, coded


def box(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind.encode()) + payload


def full_box(kind, version, flags, payload):
    return box(kind, struct.pack(">I", (version << 24) | flags) + payload)


def write_heif(path, tiles, grid=None, irot=None, imir=None, exif=None, ispe=None):
    """Writes a HEIF file whose primary image is `tiles[0]`, or the grid (rows, columns, output
    width, output height) of all `tiles`, with optional `irot` (quarter turns anti-clockwise), `imir`
    (the axis byte; libheif 1.15 swaps top and bottom for 0, left and right for 1) and an Exif item (TIFF bytes). `ispe` overrides the
    primary image's declared size (for malformed files)."""
    items = []  # (id, type, data)
    properties = []  # property boxes, numbered from 1
    associations = {}  # item id -> [(index, essential)]

    def prop(b):
        if b not in properties:
            properties.append(b)
        return properties.index(b) + 1

    tile_ids = []
    for i, (hvcc, w, h, coded) in enumerate(tiles if grid else tiles[:1]):
        item_id = i + 1
        tile_ids.append(item_id)
        items.append((item_id, b"hvc1", coded))
        associations[item_id] = [(prop(hvcc), True), (prop(full_box("ispe", 0, 0, struct.pack(">II", w, h))), False)]
    primary = tile_ids[0]
    if grid:
        rows, columns, out_w, out_h = grid
        primary = len(tile_ids) + 1
        items.append((primary, b"grid", struct.pack(">BBBBHH", 0, 0, rows - 1, columns - 1, out_w, out_h)))
        associations[primary] = [(prop(full_box("ispe", 0, 0, struct.pack(">II", *(ispe or (out_w, out_h))))), False)]
    elif ispe:
        associations[primary][1] = (prop(full_box("ispe", 0, 0, struct.pack(">II", *ispe))), False)
    if irot is not None:
        associations[primary].append((prop(box("irot", bytes([irot & 3]))), True))
    if imir is not None:
        associations[primary].append((prop(box("imir", bytes([imir & 1]))), True))
    exif_id = None
    if exif is not None:
        exif_id = max(i for i, _, _ in items) + 1
        items.append((exif_id, b"Exif", struct.pack(">I", 0) + exif))

    hdlr = full_box("hdlr", 0, 0, struct.pack(">I4s12s", 0, b"pict", b"\0" * 12) + b"\0")
    pitm = full_box("pitm", 0, 0, struct.pack(">H", primary))
    infes = b"".join(full_box("infe", 2, 0, struct.pack(">HH4s", i, 0, t) + b"\0") for i, t, _ in items)
    iinf = full_box("iinf", 0, 0, struct.pack(">H", len(items)) + infes)
    refs = b""
    if grid:
        refs += box("dimg", struct.pack(">HH", primary, len(tile_ids)) + b"".join(struct.pack(">H", t) for t in tile_ids))
    if exif_id:
        refs += box("cdsc", struct.pack(">HHH", exif_id, 1, primary))
    iref = full_box("iref", 0, 0, refs) if refs else b""
    ipco = box("ipco", b"".join(properties))
    entries = b""
    for item_id in sorted(associations):
        assoc = associations[item_id]
        entries += struct.pack(">HB", item_id, len(assoc))
        entries += b"".join(bytes([(0x80 if essential else 0) | index]) for index, essential in assoc)
    ipma = full_box("ipma", 0, 0, struct.pack(">I", len(associations)) + entries)
    iprp = box("iprp", ipco + ipma)
    ftyp = box("ftyp", b"heic" + struct.pack(">I", 0) + b"mif1heicmiaf")

    def meta_with(offsets):
        iloc_items = b"".join(
            struct.pack(">HHHII", i, 0, 1, offsets[i], len(d)) for i, _, d in items)
        iloc = full_box("iloc", 0, 0, bytes([0x44, 0x00]) + struct.pack(">H", len(items)) + iloc_items)
        return full_box("meta", 0, 0, hdlr + pitm + iloc + iinf + iref + iprp)

    size = len(ftyp) + len(meta_with({i: 0 for i, _, _ in items})) + 8
    offsets, at = {}, size
    for i, _, d in items:
        offsets[i] = at
        at += len(d)
    data = ftyp + meta_with(offsets) + box("mdat", b"".join(d for _, _, d in items))
    with open(path, "wb") as f:
        f.write(data)
    return data
