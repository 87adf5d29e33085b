internal import CSeerShims

/// Owns one libpng reader (through `CSeerShims`) for one decode; frees it in `deinit`.
final class PNGDecoder {
    private let handle: OpaquePointer
    private(set) var info = SeerPNGInfo()

    /// `data` must stay alive and unmoved until this decoder is gone. Decoding stops with `tooLarge`
    /// after `timeLimit` seconds, or `cpuLimit` seconds of this thread's CPU time, when given.
    /// Only the header of an image over `pixelLimit` is read.
    init(_ data: UnsafeRawBufferPointer, timeLimit: Double? = nil, cpuLimit: Double? = nil, pixelLimit: Int = DecodeBudget().pixels)
        throws
    {
        guard let handle = seer_png_create(data.baseAddress!.assumingMemoryBound(to: UInt8.self), data.count, 0, 0) else {
            throw ImageError(.outOfMemory, "could not allocate a PNG decoder")
        }
        self.handle = handle
        if let timeLimit { seer_png_set_deadline(handle, timeLimit) }
        if let cpuLimit { seer_png_set_cpu_limit(handle, cpuLimit) }
        seer_png_set_max_pixels(handle, UInt64(max(1, pixelLimit)))
    }

    deinit { seer_png_destroy(handle) }

    private func check(_ status: Int32) throws {
        guard Int(status) != SEER_OK else { return }
        let message = String(cString: seer_png_message(handle))
        switch Int(status) {
        case SEER_ERR_TRUNCATED: throw ImageError(.truncated, "truncated PNG: \(message)")
        case SEER_ERR_NO_MEMORY: throw ImageError(.outOfMemory, "out of memory decoding PNG: \(message)")
        case SEER_ERR_UNSUPPORTED: throw ImageError(.unsupportedFormat, "unsupported PNG variant: \(message)")
        case SEER_ERR_TOO_LARGE: throw ImageError(.tooLarge, "PNG over its decoding budget: \(message)")
        default: throw ImageError(.corrupt, "corrupt PNG: \(message)")
        }
    }

    /// Reads the header and sets up 8-bit output. The corresponding C function is `png_read_info`.
    func readHeader() throws -> (width: Int, height: Int, orientation: Orientation?) {
        try check(seer_png_read_header(handle, &info))
        var orientation: Orientation?
        if let exif = info.exif, info.exifLength > 0 {
            orientation = Exif.orientation(tiff: UnsafeRawBufferPointer(start: exif, count: Int(info.exifLength)))
        }
        return (Int(info.width), Int(info.height), orientation)
    }

    /// Decodes the whole image. Transparent pixels are composited onto white, since codes printed on
    /// transparent backgrounds are dark on a light page. The corresponding C function is `png_read_image`.
    func decode(wantRGB: Bool) throws -> (gray: GrayImage, rgb: RGBImage?) {
        let width = Int(info.width), height = Int(info.height), channels = Int(info.channels)
        if !wantRGB, info.interlaced == 0, (1...4).contains(channels) { return (try decodeGrayByRows(), nil) }
        var status: Int32 = 0
        let samples = PixelBuffer.make(count: width * height * channels) { buffer in
            status = seer_png_read_image(handle, buffer.baseAddress, width * channels)
        }
        try check(status)
        switch channels {
        case 1:
            let gray = GrayImage(width: width, height: height, pixels: samples)
            return (gray, wantRGB ? RGBImage(gray) : nil)
        case 2:
            var out = [UInt8](repeating: 0, count: width * height)
            out.withUnsafeMutableBufferPointer { o in
                samples.withUnsafeBufferPointer { s in
                    for i in 0..<o.count { o[i] = Self.overWhite(s[2 * i], alpha: s[2 * i + 1]) }
                }
            }
            let gray = GrayImage(width: width, height: height, pixels: out)
            return (gray, wantRGB ? RGBImage(gray) : nil)
        case 3:
            let rgb = RGBImage(width: width, height: height, pixels: samples)
            return (rgb.gray, wantRGB ? rgb : nil)
        case 4:
            var out = [UInt8](repeating: 0, count: width * height * 3)
            out.withUnsafeMutableBufferPointer { o in
                samples.withUnsafeBufferPointer { s in
                    for i in 0..<(width * height) {
                        let a = s[4 * i + 3]
                        o[3 * i] = Self.overWhite(s[4 * i], alpha: a)
                        o[3 * i + 1] = Self.overWhite(s[4 * i + 1], alpha: a)
                        o[3 * i + 2] = Self.overWhite(s[4 * i + 2], alpha: a)
                    }
                }
            }
            let rgb = RGBImage(width: width, height: height, pixels: out)
            return (rgb.gray, wantRGB ? rgb : nil)
        default:
            throw ImageError(.unsupportedFormat, "PNG with \(channels) channels after conversion")
        }
    }

    /// Decodes to grey a row at a time: memory is the grey image and one row of samples, whatever
    /// the colour type (a 100-megapixel RGBA file would otherwise hold 400 MB of samples and 300 MB
    /// of colour on the way to 100 MB of grey). Only for images that are not interlaced. The
    /// corresponding C function is `png_read_row`.
    private func decodeGrayByRows() throws -> GrayImage {
        let width = Int(info.width), height = Int(info.height), channels = Int(info.channels)
        var row = [UInt8](repeating: 0, count: width * channels)
        let pixels = try PixelBuffer.make(count: width * height) { out in
            try row.withUnsafeMutableBufferPointer { r in
                for y in 0..<height {
                    try check(seer_png_read_row(handle, r.baseAddress))
                    let o = out.baseAddress! + y * width
                    switch channels {
                    case 1: o.update(from: r.baseAddress!, count: width)
                    case 2: for x in 0..<width { o[x] = Self.overWhite(r[2 * x], alpha: r[2 * x + 1]) }
                    case 3: for x in 0..<width { o[x] = Luma.bt601(r[3 * x], r[3 * x + 1], r[3 * x + 2]) }
                    default:
                        for x in 0..<width {
                            let a = r[4 * x + 3]
                            o[x] = Luma.bt601(
                                Self.overWhite(r[4 * x], alpha: a), Self.overWhite(r[4 * x + 1], alpha: a),
                                Self.overWhite(r[4 * x + 2], alpha: a))
                        }
                    }
                }
            }
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    @inline(__always)
    static func overWhite(_ value: UInt8, alpha: UInt8) -> UInt8 {
        let v = UInt32(value) * UInt32(alpha) + 255 * (255 - UInt32(alpha))
        return UInt8((v + 127) / 255)
    }
}
