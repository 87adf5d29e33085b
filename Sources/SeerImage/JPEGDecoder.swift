internal import CSeerShims

/// Owns one libjpeg decompressor (through `CSeerShims`) for one decode; frees it in `deinit`.
final class JPEGDecoder {
    private let handle: OpaquePointer

    /// A decoder whose work is bounded by `options.workLimit`, `options.timeLimit` and the CPU time of
    /// `options.budget`.
    init(_ options: DecodeOptions = .init()) throws {
        guard let handle = seer_jpeg_create() else {
            throw ImageError(.outOfMemory, "could not allocate a JPEG decoder")
        }
        self.handle = handle
        seer_jpeg_set_limits(handle, Int32(clamping: max(1, options.workLimit)), options.timeLimit ?? 0)
        seer_jpeg_set_cpu_limit(handle, options.budget.cpuSeconds ?? 0)
    }

    /// The blocks the scans read so far ask to decode (the measure `workLimit` bounds).
    var work: Int { Int(seer_jpeg_work(handle)) }

    deinit { seer_jpeg_destroy(handle) }

    private func check(_ status: Int32) throws {
        guard Int(status) != SEER_OK else { return }
        let message = String(cString: seer_jpeg_message(handle))
        switch Int(status) {
        case SEER_ERR_TRUNCATED: throw ImageError(.truncated, "truncated JPEG: \(message)")
        case SEER_ERR_NO_MEMORY: throw ImageError(.outOfMemory, "out of memory decoding JPEG: \(message)")
        case SEER_ERR_UNSUPPORTED: throw ImageError(.unsupportedFormat, "unsupported JPEG variant: \(message)")
        case SEER_ERR_TOO_LARGE: throw ImageError(.tooLarge, "JPEG over its decoding budget: \(message)")
        default: throw ImageError(.corrupt, "corrupt JPEG: \(message)")
        }
    }

    /// Reads the header of `data`, which must stay alive and unmoved until this decoder is gone.
    /// The corresponding C function is `jpeg_read_header`.
    func readHeader(_ data: UnsafeRawBufferPointer) throws -> SeerJPEGInfo {
        var info = SeerJPEGInfo()
        try check(seer_jpeg_read_header(handle, data.baseAddress!.assumingMemoryBound(to: UInt8.self), data.count, &info))
        return info
    }

    /// Reads the header from `fd`, positioned at the start of the JPEG; decoding then keeps reading it.
    /// The descriptor must stay open until this decoder is gone.
    func readHeader(fd: Int32) throws -> SeerJPEGInfo {
        var info = SeerJPEGInfo()
        try check(seer_jpeg_read_header_fd(handle, fd, &info))
        return info
    }

    /// Decodes to grey (and RGB when asked), scaled by 1/`scale` in the DCT.
    /// The corresponding C functions are `jpeg_start_decompress` and `jpeg_read_scanlines`.
    func decode(scale: Int, wantRGB: Bool, fastDCT: Bool) throws -> (gray: GrayImage, rgb: RGBImage?) {
        var info = SeerJPEGInfo()
        // Grey straight from the decoder skips colour conversion and the chroma IDCTs; RGB is
        // requested only when the caller wants colour. CMYK comes out native and is converted here.
        try check(seer_jpeg_start(handle, wantRGB ? 1 : 0, Int32(scale), fastDCT ? 1 : 0, &info))
        let width = Int(info.outputWidth), height = Int(info.outputHeight), channels = Int(info.outputComponents)
        var status: Int32 = 0
        let samples = PixelBuffer.make(count: width * height * channels) { buffer in
            status = seer_jpeg_read_all(handle, buffer.baseAddress, width * channels)
        }
        try check(status)
        switch channels {
        case 1:
            let gray = GrayImage(width: width, height: height, pixels: samples)
            return (gray, wantRGB ? RGBImage(gray) : nil)
        case 3:
            let rgb = RGBImage(width: width, height: height, pixels: samples)
            return (rgb.gray, rgb)
        case 4:
            let rgb = Self.cmykToRGB(samples, width: width, height: height, inverted: info.adobeInverted != 0)
            return (rgb.gray, wantRGB ? rgb : nil)
        default:
            throw ImageError(.unsupportedFormat, "JPEG with \(channels) output components")
        }
    }

    /// Decodes to grey band by band, handing each band to `body` and reusing one small buffer:
    /// memory stays a few rows whatever the image's size. Returns false, having decoded nothing,
    /// when the JPEG is CMYK (its grey needs the whole-image path).
    /// The corresponding C functions are `jpeg_start_decompress` and `jpeg_read_scanlines`.
    func decodeRows(scale: Int, fastDCT: Bool, _ body: (RowBand) throws -> Void) throws -> Bool {
        var info = SeerJPEGInfo()
        try check(seer_jpeg_start(handle, 0, Int32(scale), fastDCT ? 1 : 0, &info))
        let width = Int(info.outputWidth), height = Int(info.outputHeight)
        guard Int(info.outputComponents) == 1 else { return false }
        let bandRows = 64
        var buffer = [UInt8](repeating: 0, count: width * bandRows)
        var first = 0
        while first < height {
            var read: Int32 = 0
            let status = buffer.withUnsafeMutableBufferPointer {
                seer_jpeg_read_rows(handle, $0.baseAddress, width, Int32(min(bandRows, height - first)), &read)
            }
            try check(status)
            guard read > 0 else { throw ImageError(.truncated, "truncated JPEG: the decoder stopped before the last row") }
            try buffer.withUnsafeBufferPointer {
                try body(RowBand(width: width, height: height, firstRow: first, rows: Int(read), pixels: UnsafeBufferPointer(rebasing: $0[0..<(width * Int(read))])))
            }
            first += Int(read)
        }
        return true
    }

    /// Naive CMYK → RGB. Adobe applications store CMYK inverted (0 = full ink); others store it plain.
    private static func cmykToRGB(_ cmyk: [UInt8], width: Int, height: Int, inverted: Bool) -> RGBImage {
        var out = [UInt8](repeating: 0, count: width * height * 3)
        out.withUnsafeMutableBufferPointer { o in
            cmyk.withUnsafeBufferPointer { p in
                for i in 0..<(width * height) {
                    var c = UInt32(p[4 * i]), m = UInt32(p[4 * i + 1]), y = UInt32(p[4 * i + 2]), k = UInt32(p[4 * i + 3])
                    if !inverted { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k }
                    o[3 * i] = UInt8((c * k + 127) / 255)
                    o[3 * i + 1] = UInt8((m * k + 127) / 255)
                    o[3 * i + 2] = UInt8((y * k + 127) / 255)
                }
            }
        }
        return RGBImage(width: width, height: height, pixels: out)
    }
}

extension ImageDecoder.JPEGFrame {
    init(_ header: SeerJPEGInfo) {
        self.init(progressive: header.progressive != 0, components: Int(header.components), blocks: Int(header.coefficientBlocks))
    }
}
