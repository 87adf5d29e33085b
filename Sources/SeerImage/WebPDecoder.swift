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
        // A large lossless image's grey comes the same way, as libwebp's video-range luma (within
        // about a level of the exact luminance): its RGB output beside the decoder's own ARGB copy
        // of the image would hold 7 bytes a pixel, luma and chroma planes 5.5.
        let lumaOnly = !wantRGB && (features.format == 1 || width * height > Self.losslessLumaPixels)
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw ImageError(.unsupportedFormat, "libwebp is not the version Seer was built against")
        }
        if lumaOnly { return try decodeLuma(&config, alpha: alpha) }
        config.output.colorspace = alpha ? MODE_RGBA : MODE_RGB
        let status = WebPDecode(data.baseAddress!.assumingMemoryBound(to: UInt8.self), data.count, &config)
        defer { WebPFreeDecBuffer(&config.output) }
        guard status == VP8_STATUS_OK else { throw Self.imageError(status, "decoding") }
        let w = Int(config.output.width), h = Int(config.output.height)
        guard w == width, h == height else {
            throw ImageError(.corrupt, "corrupt WebP: the image is \(w)×\(h), the header says \(width)×\(height)")
        }
        let rgba = config.output.u.RGBA
        guard let rgbaBase = rgba.rgba else { throw ImageError(.corrupt, "corrupt WebP: no colour samples") }
        let rgb = Self.rgb(rgbaBase, stride: Int(rgba.stride), width: w, height: h, channels: alpha ? 4 : 3)
        return (rgb.gray, wantRGB ? rgb : nil)
    }

    /// Lossless images over this many pixels are decoded to grey through libwebp's luma, not its RGB.
    static let losslessLumaPixels = 16_000_000

    /// Luma (lossy data's own, or a large lossless image's), decoded straight into the grey image's
    /// buffer (libwebp writes into memory Seer owns: no second full-size plane) and stretched there
    /// from video range (16–235) to 0–255, as its RGB would give. Chroma (a quarter of the pixels
    /// each) and alpha go to buffers of their own.
    private func decodeLuma(_ config: inout WebPDecoderConfig, alpha: Bool) throws -> (gray: GrayImage, rgb: RGBImage?) {
        let w = width, h = height, cw = (w + 1) / 2, ch = (h + 1) / 2
        var u = [UInt8](repeating: 0, count: cw * ch), v = u
        var a = [UInt8](repeating: 255, count: alpha ? w * h : 0)
        let table = HEIFDecoder.lumaTable(bits: 8, limited: true)
        let pixels = try PixelBuffer.make(count: w * h) { out in
            try u.withUnsafeMutableBufferPointer { ub in
                try v.withUnsafeMutableBufferPointer { vb in
                    try a.withUnsafeMutableBufferPointer { ab in
                        config.output.colorspace = alpha ? MODE_YUVA : MODE_YUV
                        config.output.is_external_memory = 1
                        config.output.u.YUVA.y = out.baseAddress
                        config.output.u.YUVA.y_stride = Int32(w)
                        config.output.u.YUVA.y_size = w * h
                        config.output.u.YUVA.u = ub.baseAddress
                        config.output.u.YUVA.v = vb.baseAddress
                        config.output.u.YUVA.u_stride = Int32(cw)
                        config.output.u.YUVA.v_stride = Int32(cw)
                        config.output.u.YUVA.u_size = cw * ch
                        config.output.u.YUVA.v_size = cw * ch
                        config.output.u.YUVA.a = alpha ? ab.baseAddress : nil
                        config.output.u.YUVA.a_stride = alpha ? Int32(w) : 0
                        config.output.u.YUVA.a_size = alpha ? w * h : 0
                        let status = WebPDecode(data.baseAddress!.assumingMemoryBound(to: UInt8.self), data.count, &config)
                        WebPFreeDecBuffer(&config.output)
                        guard status == VP8_STATUS_OK else { throw Self.imageError(status, "decoding") }
                        guard Int(config.output.width) == w, Int(config.output.height) == h else {
                            throw ImageError(
                                .corrupt, "corrupt WebP: the image is \(config.output.width)×\(config.output.height), the header says \(w)×\(h)")
                        }
                        table.withUnsafeBufferPointer { t in
                            for i in 0..<(w * h) { out[i] = t[Int(out[i])] }
                            if alpha { for i in 0..<(w * h) { out[i] = PNGDecoder.overWhite(out[i], alpha: ab[i]) } }
                        }
                    }
                }
            }
        }
        return (GrayImage(width: w, height: h, pixels: pixels), nil)
    }

    /// The first frame of an animation on its canvas. Only the frame is decoded; the rest of the
    /// canvas is transparent before the first frame (libwebp's animation decoder starts from
    /// transparent too), which is white here. Memory is the frame's RGBA and the output image, never
    /// a canvas-sized RGBA buffer (libwebp's animation decoder holds two), so a tiny frame on a
    /// huge canvas costs what its output costs. Every frame's `ANMF` size must be its bitstream's.
    /// The corresponding C functions are `WebPDemuxGetFrame` and `WebPDecode`.
    private func decodeFirstFrame(wantRGB: Bool) throws -> (gray: GrayImage, rgb: RGBImage?) {
        if let fault = Self.animationFault(data, canvas: (width, height)) {
            throw ImageError(.corrupt, "corrupt WebP: \(fault)")
        }
        var webp = WebPData(bytes: data.baseAddress!.assumingMemoryBound(to: UInt8.self), size: data.count)
        guard let demux = WebPDemux(&webp) else {
            throw ImageError(.corrupt, "corrupt WebP: the animation cannot be read")
        }
        defer { WebPDemuxDelete(demux) }
        guard Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH)) == width, Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT)) == height
        else { throw ImageError(.corrupt, "corrupt WebP: the animation's canvas does not match its header") }
        var frame = WebPIterator()
        guard WebPDemuxGetFrame(demux, 1, &frame) != 0, let bytes = frame.fragment.bytes else {
            throw ImageError(.corrupt, "corrupt WebP: the animation has no frame")
        }
        defer { WebPDemuxReleaseIterator(&frame) }
        let x0 = Int(frame.x_offset), y0 = Int(frame.y_offset), fw = Int(frame.width), fh = Int(frame.height)
        guard fw > 0, fh > 0, x0 >= 0, y0 >= 0, x0 + fw <= width, y0 + fh <= height else {
            throw ImageError(.corrupt, "corrupt WebP: the first frame (\(fw)×\(fh) at \(x0),\(y0)) is not inside the canvas")
        }
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw ImageError(.unsupportedFormat, "libwebp is not the version Seer was built against")
        }
        config.output.colorspace = MODE_RGBA
        let status = WebPDecode(bytes, frame.fragment.size, &config)
        defer { WebPFreeDecBuffer(&config.output) }
        guard status == VP8_STATUS_OK else { throw Self.imageError(status, "decoding the first frame") }
        guard Int(config.output.width) == fw, Int(config.output.height) == fh, let rgba = config.output.u.RGBA.rgba else {
            throw ImageError(.corrupt, "corrupt WebP: the first frame decodes to another size than it declares")
        }
        let pixels = Self.rgb(rgba, stride: Int(config.output.u.RGBA.stride), width: fw, height: fh, channels: 4)
        if wantRGB {
            var canvas = [UInt8](repeating: 255, count: width * height * 3)
            canvas.withUnsafeMutableBufferPointer { c in
                pixels.pixels.withUnsafeBufferPointer { p in
                    for y in 0..<fh {
                        let o = c.baseAddress! + ((y0 + y) * width + x0) * 3
                        o.update(from: p.baseAddress! + y * fw * 3, count: fw * 3)
                    }
                }
            }
            let rgb = RGBImage(width: width, height: height, pixels: canvas)
            return (rgb.gray, rgb)
        }
        let gray = pixels.gray
        var canvas = [UInt8](repeating: Luma.bt601(255, 255, 255), count: width * height)
        canvas.withUnsafeMutableBufferPointer { c in
            gray.pixels.withUnsafeBufferPointer { g in
                for y in 0..<fh {
                    (c.baseAddress! + (y0 + y) * width + x0).update(from: g.baseAddress! + y * fw, count: fw)
                }
            }
        }
        return (GrayImage(width: width, height: height, pixels: canvas), nil)
    }

    /// Walks the chunks of an animation (RIFF, after `VP8X`) and checks each frame (`ANMF`): the
    /// size its header declares must be the size of the bitstream it carries (libwebp's demuxer
    /// silently takes the bitstream's; `webpinfo` calls a difference an error), and the frame must
    /// lie inside the canvas. Reads headers only. Returns a description of the first fault, `nil`
    /// when every frame is sound; damage this walk cannot see is left to the decoder.
    static func animationFault(_ data: UnsafeRawBufferPointer, canvas: (width: Int, height: Int)) -> String? {
        func le(_ at: Int, _ n: Int) -> Int {
            (0..<n).reduce(0) { $0 | Int(data[at + $1]) << (8 * $1) }
        }
        guard data.count >= 12 else { return nil }
        let end = min(data.count, 8 + le(4, 4))
        var at = 12
        var number = 0
        while at + 8 <= end {
            let size = le(at + 4, 4)
            let body = at + 8
            guard size <= end - body else { return nil }
            if data[at] == 0x41, data[at + 1] == 0x4E, data[at + 2] == 0x4D, data[at + 3] == 0x46 {  // ANMF
                number += 1
                guard size >= 16 else { return "frame \(number)'s header is \(size) bytes, shorter than 16" }
                let x = 2 * le(body, 3), y = 2 * le(body + 3, 3), w = 1 + le(body + 6, 3), h = 1 + le(body + 9, 3)
                guard x + w <= canvas.width, y + h <= canvas.height else {
                    return "frame \(number) (\(w)×\(h) at \(x),\(y)) is not inside the \(canvas.width)×\(canvas.height) canvas"
                }
                var features = WebPBitstreamFeatures()
                let status = WebPGetFeatures(
                    data.baseAddress!.assumingMemoryBound(to: UInt8.self) + body + 16, size - 16, &features)
                guard status == VP8_STATUS_OK else { return "frame \(number)'s bitstream header cannot be read" }
                if Int(features.width) != w || Int(features.height) != h {
                    return "frame \(number) is \(w)×\(h) in its ANMF header, \(features.width)×\(features.height) in its bitstream"
                }
            }
            at = body + size + (size & 1)
        }
        return nil
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
