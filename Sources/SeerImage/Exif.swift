/// Just enough EXIF (TIFF structure) to find the orientation tag.
enum Exif {
    /// The orientation in a TIFF-structured EXIF block (starting at the `II`/`MM` byte order mark),
    /// or `nil` when absent or malformed. Never reads outside `tiff`.
    static func orientation(tiff: UnsafeRawBufferPointer) -> Orientation? {
        guard tiff.count >= 8 else { return nil }
        let little: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= tiff.count else { return nil }
            let a = Int(tiff[at]), b = Int(tiff[at + 1])
            return little ? a | b << 8 : a << 8 | b
        }
        func u32(_ at: Int) -> Int? {
            guard let hi = u16(little ? at + 2 : at), let lo = u16(little ? at : at + 2) else { return nil }
            return hi << 16 | lo
        }
        guard u16(2) == 42, let ifd = u32(4), let entries = u16(ifd) else { return nil }
        for i in 0..<min(entries, 512) {
            let entry = ifd + 2 + 12 * i
            guard let tag = u16(entry) else { return nil }
            if tag == 0x0112 {
                // SHORT, count 1: the value sits in the first two bytes of the value field.
                guard let type = u16(entry + 2), type == 3, let value = u16(entry + 8) else { return nil }
                return Orientation(rawValue: value)
            }
        }
        return nil
    }

    /// The orientation stored in a JPEG's APP1 Exif segment, scanning markers up to the first scan.
    static func jpegOrientation(_ data: UnsafeRawBufferPointer) -> Orientation? {
        var at = 2  // after SOI
        while at + 4 <= data.count {
            guard data[at] == 0xFF else { return nil }
            let marker = data[at + 1]
            if marker == 0xFF { at += 1; continue }  // fill byte
            if marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7) || marker == 0x01 { at += 2; continue }
            if marker == 0xDA || marker == 0xD9 { return nil }  // start of scan / end: no more metadata
            let length = Int(data[at + 2]) << 8 | Int(data[at + 3])
            guard length >= 2, at + 2 + length <= data.count else { return nil }
            if marker == 0xE1, length >= 16 {
                let body = at + 4
                let exifHeader: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]  // "Exif\0\0"
                if (0..<6).allSatisfy({ data[body + $0] == exifHeader[$0] }) {
                    let start = body + 6, end = at + 2 + length
                    return orientation(tiff: UnsafeRawBufferPointer(rebasing: data[start..<end]))
                }
            }
            at += 2 + length
        }
        return nil
    }
}
