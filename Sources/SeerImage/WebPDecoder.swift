internal import CWebP

/// Decodes WebP through libwebp (and libwebpdemux for animations and metadata). libwebp reports failures as status codes; every buffer it allocates is freed before return.
struct WebPDecoder {
    private let data: UnsafeRawBufferPointer
    private let features: WebPBitstreamFeatures
    /// The canvas size from the header.
    let width: Int
    let height: Int
    /// The EXIF orientation from an `EXIF` chunk, `.up` when there is none.
    let orientation: Orientation

    /// Reads the header of `data` (which must stay alive while this decoder is used). Decodes no pixels.
    /// The corresponding C function is `WebPGetFeatures`.
    init(_ data: UnsafeRawBufferPointer) throws {
        let base = data.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var features = WebPBitstreamFeatures()
        let status = WebPGetFeatures(base, data.count, &features)
        guard status == VP8_STATUS_OK else { throw Self.imageError(status, "reading the header") }
        self.data = data
        self.features = features
        width = Int(features.width)
        height = Int(features.height)
        orientation = try Self.exifOrientation(data) ?? .up
    }

    /// Decodes the image (an animation's first frame, on its canvas): grey straight from the luma
    /// plane of lossy data, colour otherwise or when asked. Transparent pixels are composited onto white.
    /// The corresponding C functions are `WebPDecode` and `WebPAnimDecoderGetNext`.
    func decode(wantRGB: Bool) throws -> (gray: GrayImage, rgb: RGBImage?) {
        if features.has_animation != 0 { return try decodeFirstFrame(wantRGB: wantRGB) }
        let alpha = features.has_alpha != 0
        // Lossy data is stored as YUV: its luma is the grey picture, no colour conversion needed.
        let lumaOnly = !wantRGB && features.format == 1
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw ImageError(.unsupportedFormat, "libwebp is not the version Seer was built against")
        }
        config.output.colorspace = lumaOnly ? (alpha ? MODE_YUVA : MODE_YUV) : (alpha ? MODE_RGBA : MODE_RGB)
        let status = WebPDecode(data.baseAddress!.assumingMemoryBound(to: UInt8.self), data.count, &config)
        defer { WebPFreeDecBuffer(&config.output) }
        guard status == VP8_STATUS_OK else { throw Self.imageError(status, "decoding") }
        let w = Int(config.output.width), h = Int(config.output.height)
        guard w == width, h == height else {
            throw ImageError(.corrupt, "corrupt WebP: the image is \(w)×\(h), the header says \(width)×\(height)")
        }
        if lumaOnly {
            let yuva = config.output.u.YUVA
            guard let y = yuva.y else { throw ImageError(.corrupt, "corrupt WebP: no luma samples") }
            // VP8 luma is in video range (16–235): stretched to 0–255 as its RGB would give.
            let table = HEIFDecoder.lumaTable(bits: 8, limited: true)
            let pixels = PixelBuffer.make(count: w * h) { out in
                table.withUnsafeBufferPointer { t in
                    for row in 0..<h {
                        let src = y + row * Int(yuva.y_stride)
                        let o = out.baseAddress! + row * w
                        for x in 0..<w { o[x] = t[Int(src[x])] }
                        if alpha, let a = yuva.a {
                            let arow = a + row * Int(yuva.a_stride)
                            for x in 0..<w { o[x] = PNGDecoder.overWhite(o[x], alpha: arow[x]) }
                        }
                    }
                }
            }
            return (GrayImage(width: w, height: h, pixels: pixels), nil)
        }
        let rgba = config.output.u.RGBA
        guard let rgbaBase = rgba.rgba else { throw ImageError(.corrupt, "corrupt WebP: no colour samples") }
        let rgb = Self.rgb(rgbaBase, stride: Int(rgba.stride), width: w, height: h, channels: alpha ? 4 : 3)
        return (rgb.gray, wantRGB ? rgb : nil)
    }

    private func decodeFirstFrame(wantRGB: Bool) throws -> (gray: GrayImage, rgb: RGBImage?) {
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else {
            throw ImageError(.unsupportedFormat, "libwebpdemux is not the version Seer was built against")
        }
        options.color_mode = MODE_RGBA
        options.use_threads = 0
        var webp = WebPData(bytes: data.baseAddress!.assumingMemoryBound(to: UInt8.self), size: data.count)
        guard let decoder = WebPAnimDecoderNew(&webp, &options) else {
            throw ImageError(.corrupt, "corrupt WebP: the animation cannot be read")
        }
        defer { WebPAnimDecoderDelete(decoder) }
        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0, Int(info.canvas_width) == width,
            Int(info.canvas_height) == height
        else { throw ImageError(.corrupt, "corrupt WebP: the animation's canvas does not match its header") }
        var frame: UnsafeMutablePointer<UInt8>?
        var timestamp: Int32 = 0
        guard WebPAnimDecoderGetNext(decoder, &frame, &timestamp) != 0, let frame else {
            throw ImageError(.corrupt, "corrupt WebP: the first frame of the animation cannot be decoded")
        }
        let rgb = Self.rgb(frame, stride: width * 4, width: width, height: height, channels: 4)
        return (rgb.gray, wantRGB ? rgb : nil)
    }

    /// Interleaved RGB(A) rows → RGB, alpha composited onto white.
    private static func rgb(_ base: UnsafeMutablePointer<UInt8>, stride: Int, width w: Int, height h: Int, channels: Int)
        -> RGBImage
    {
        let pixels = PixelBuffer.make(count: w * h * 3) { out in
            for y in 0..<h {
                let row = base + y * stride
                let o = out.baseAddress! + y * w * 3
                if channels == 3 {
                    (o).update(from: row, count: w * 3)
                } else {
                    for x in 0..<w {
                        let p = row + 4 * x
                        o[3 * x] = PNGDecoder.overWhite(p[0], alpha: p[3])
                        o[3 * x + 1] = PNGDecoder.overWhite(p[1], alpha: p[3])
                        o[3 * x + 2] = PNGDecoder.overWhite(p[2], alpha: p[3])
                    }
                }
            }
        }
        return RGBImage(width: w, height: h, pixels: pixels)
    }

    /// The orientation in an `EXIF` chunk, read with libwebpdemux; only files with an extended header
    /// (`VP8X`) can carry one.
    private static func exifOrientation(_ data: UnsafeRawBufferPointer) throws -> Orientation? {
        guard data.count >= 30, data[12] == 0x56, data[13] == 0x50, data[14] == 0x38, data[15] == 0x58,  // VP8X
            data[20] & 0x08 != 0  // the EXIF flag
        else { return nil }
        var webp = WebPData(bytes: data.baseAddress!.assumingMemoryBound(to: UInt8.self), size: data.count)
        guard let demux = WebPDemux(&webp) else { return nil }
        defer { WebPDemuxDelete(demux) }
        var chunk = WebPChunkIterator()
        guard WebPDemuxGetChunk(demux, "EXIF", 1, &chunk) != 0 else { return nil }
        defer { WebPDemuxReleaseChunkIterator(&chunk) }
        guard let bytes = chunk.chunk.bytes else { return nil }
        var tiff = UnsafeRawBufferPointer(start: bytes, count: chunk.chunk.size)
        // Some writers keep JPEG's "Exif\0\0" prefix.
        if tiff.count >= 6, tiff.starts(with: [0x45, 0x78, 0x69, 0x66, 0, 0]) {
            tiff = UnsafeRawBufferPointer(rebasing: tiff[6...])
        }
        return Exif.orientation(tiff: tiff)
    }


    private static func imageError(_ status: VP8StatusCode, _ doing: String) -> ImageError {
        switch status {
        case VP8_STATUS_NOT_ENOUGH_DATA: ImageError(.truncated, "truncated WebP: the data ends before the image does")
        case VP8_STATUS_OUT_OF_MEMORY: ImageError(.outOfMemory, "out of memory decoding WebP")
        case VP8_STATUS_UNSUPPORTED_FEATURE: ImageError(.unsupportedFormat, "unsupported WebP variant (\(doing))")
        default: ImageError(.corrupt, "corrupt WebP: the bitstream is invalid (\(doing))")
        }
    }
}
