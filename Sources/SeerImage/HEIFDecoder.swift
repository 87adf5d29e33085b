internal import CHeif
internal import CSeerShims

/// Owns one libheif context (and the primary image's handle) for one decode; frees both in `deinit`.
///
/// libheif reports every failure as a returned `heif_error`, never by a jump or an exit.
final class HEIFDecoder {
    private let context: OpaquePointer
    private let handle: OpaquePointer
    private let data: UnsafeRawBufferPointer
    /// The size libheif decodes to: after the boxes' transformations, before an EXIF orientation.
    let width: Int
    let height: Int
    /// The orientation the `irot`/`imir` boxes amount to (libheif applies it when decoding), else
    /// the EXIF orientation (which Seer applies), else `.up`.
    let orientation: Orientation
    /// Whether `orientation` comes from the boxes, so libheif's pixels are already turned.
    let orientationInBoxes: Bool

    /// Reads the boxes of `data`, which must stay alive and unmoved until this decoder is gone.
    /// Decodes no pixels. The corresponding C function is `heif_context_read_from_memory_without_copy`.
    init(_ data: UnsafeRawBufferPointer) throws {
        if let fault = HEIFBoxes.hvcCFault(data) ?? HEIFBoxes.referenceFault(data) {
            throw ImageError(.corrupt, "corrupt HEIC: \(fault)")
        }
        guard let context = heif_context_alloc() else {
            throw ImageError(.outOfMemory, "could not allocate a HEIF decoder")
        }
        // A grid's tiles are decoded on the calling thread, one after another: the caller (a batch, the
        // service) already runs a photo a core, and the decode's processor time is then the calling
        // thread's, which is what the time budgets measure. (libheif starts threads of its own for
        // the tiles otherwise; on two cores they saved no time.)
        heif_context_set_max_decoding_threads(context, 0)
        // HEVC through Seer's plugin (CSeerShims/heif.c): libde265 on this thread too, so that its
        // time is this thread's, and stopped between NAL units (a grid's tiles) by the CPU budget.
        guard seer_heif_register(context) == 0 else {
            heif_context_free(context)
            throw ImageError(.unsupportedFormat, "could not register Seer's HEVC decoder with libheif")
        }
        var error = heif_context_read_from_memory_without_copy(context, data.baseAddress, data.count, nil)
        if error.code != heif_error_Ok {
            // The message lives in the context: read it before the context goes.
            let failure = Self.imageError(error)
            heif_context_free(context)
            throw failure
        }
        var handle: OpaquePointer?
        error = heif_context_get_primary_image_handle(context, &handle)
        guard error.code == heif_error_Ok, let handle else {
            let failure = Self.imageError(error)
            heif_context_free(context)
            throw failure
        }
        self.context = context
        self.handle = handle
        self.data = data
        width = Int(heif_image_handle_get_width(handle))
        height = Int(heif_image_handle_get_height(handle))
        if let failure = Self.codedSizeFault(data, width: width, height: height) {
            heif_image_handle_release(handle)
            heif_context_free(context)
            throw failure
        }
        if let boxes = HEIFBoxes.orientation(data) {
            orientation = boxes
            orientationInBoxes = true
        } else {
            orientation = Self.exifOrientation(handle) ?? .up
            orientationInBoxes = false
        }
    }

    deinit {
        heif_image_handle_release(handle)
        heif_context_free(context)
    }

    /// Refuses coded pictures that ask for more work than the image they make: each HEVC picture (and
    /// each grid's declared output) no larger than the image (give or take the coding block padding), and all of them together no
    /// more than four times its pixels (grid tiles, a thumbnail, an alpha plane), before libheif
    /// decodes any of them.
    private static func codedSizeFault(_ data: UnsafeRawBufferPointer, width: Int, height: Int) -> ImageError? {
        let side = max(width, height) + 128
        var total = 0
        for size in HEIFBoxes.codedSizes(data) {
            guard let size else {
                return ImageError(.corrupt, "corrupt HEIC: an HEVC parameter set or a grid cannot be read")
            }
            guard size.width > 0, size.height > 0 else {
                return ImageError(.corrupt, "corrupt HEIC: a coded picture or grid is \(size.width)×\(size.height)")
            }
            if size.width > side || size.height > side {
                return ImageError(
                    .corrupt,
                    "corrupt HEIC: a coded picture or grid of \(size.width)×\(size.height) in a \(width)×\(height) image")
            }
            total += size.width * size.height
        }
        if total > 4 * width * height + (1 << 22) {
            return ImageError(
                .tooLarge, "HEIC over its decoding budget: its pictures hold \(total) pixels for a \(width)×\(height) image")
        }
        return nil
    }

    /// The stored pixel grid's size: the displayed size before the orientation.
    var storedWidth: Int { orientationInBoxes && orientation.swapsDimensions ? height : width }
    var storedHeight: Int { orientationInBoxes && orientation.swapsDimensions ? width : height }

    /// CPU seconds a pixel that libheif spends after the last coded picture is decoded.
    static let joiningSecondsPerPixel = 16e-9

    /// Decodes the primary image as displayed by its boxes (clean aperture, rotation, mirror): to
    /// grey straight from the luma plane, or to RGB when asked. Transparent pixels are composited
    /// onto white, as for PNG. Strict: damaged coded data is an error, never a concealed picture.
    /// The corresponding C function is `heif_decode_image`.
    func decode(wantRGB: Bool, cpuSeconds: Double?) throws -> (gray: GrayImage, rgb: RGBImage?) {
        // Checked here, after the caller's pixel limit: a grid its tiles do not cover is damage.
        if let fault = HEIFBoxes.gridFault(data) { throw ImageError(.corrupt, "corrupt HEIC: \(fault)") }
        guard let options = heif_decoding_options_alloc() else {
            throw ImageError(.outOfMemory, "could not allocate HEIF decoding options")
        }
        defer { heif_decoding_options_free(options) }
        options.pointee.strict_decoding = 1
        options.pointee.convert_hdr_to_8bit = 1
        let alpha = heif_image_handle_has_alpha_channel(handle) != 0
        var image: OpaquePointer?
        // The coded pictures are decoded first; then libheif joins a grid's tiles and converts
        // colour (about 16 ns a pixel here), which nothing can stop: that much of the budget is kept
        // for it.
        seer_heif_set_cpu_limit(cpuSeconds.map { max(0.001, $0 - Double(width * height) * Self.joiningSecondsPerPixel) } ?? 0)
        defer { seer_heif_set_cpu_limit(0) }
        let error =
            wantRGB
            ? heif_decode_image(
                handle, &image, heif_colorspace_RGB, alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB,
                options)
            : heif_decode_image(handle, &image, heif_colorspace_YCbCr, heif_chroma_undefined, options)
        if seer_heif_over_budget() != 0 {
            if let image { heif_image_release(image) }
            throw ImageError(.tooLarge, "HEIC over its decoding budget of \(cpuSeconds ?? 0) s of CPU time: stopped between its coded pictures")
        }
        guard error.code == heif_error_Ok, let image else { throw Self.imageError(error) }
        defer { heif_image_release(image) }
        return wantRGB ? try rgbImage(image, alpha: alpha) : try grayImage(image)
    }

    private func grayImage(_ image: OpaquePointer) throws -> (gray: GrayImage, rgb: RGBImage?) {
        guard heif_image_has_channel(image, heif_channel_Y) != 0 else {
            throw ImageError(.unsupportedFormat, "unsupported HEIC variant: the image has no luma plane")
        }
        let w = Int(heif_image_get_width(image, heif_channel_Y)), h = Int(heif_image_get_height(image, heif_channel_Y))
        guard w == width, h == height else {
            throw ImageError(.corrupt, "corrupt HEIC: the decoded image is \(w)×\(h), the boxes say \(width)×\(height)")
        }
        // Samples are stored in one byte up to 8 bits, in two (little-endian) above; `bits` of them count.
        let bits = Int(heif_image_get_bits_per_pixel_range(image, heif_channel_Y))
        let wide = heif_image_get_bits_per_pixel(image, heif_channel_Y) > 8
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane_readonly(image, heif_channel_Y, &stride) else {
            throw ImageError(.corrupt, "corrupt HEIC: no luma samples")
        }
        var alphaStride: Int32 = 0
        let alphaPlane =
            heif_image_has_channel(image, heif_channel_Alpha) != 0
                && heif_image_get_bits_per_pixel_range(image, heif_channel_Alpha) <= 8
                && heif_image_get_width(image, heif_channel_Alpha) == Int32(w)
                && heif_image_get_height(image, heif_channel_Alpha) == Int32(h)
            ? heif_image_get_plane_readonly(image, heif_channel_Alpha, &alphaStride) : nil
        // Luma in video ("limited") range spans 16–235 (at 8 bits): stretch it to 0–255.
        let limited = fullRange(image) == false
        let table = Self.lumaTable(bits: wide ? bits : 8, limited: limited)
        let rowStride = Int(stride)
        let pixels = PixelBuffer.make(count: w * h) { out in
            table.withUnsafeBufferPointer { t in
                for y in 0..<h {
                    let o = out.baseAddress! + y * w
                    if !wide {
                        let row = plane + y * rowStride
                        for x in 0..<w { o[x] = t[Int(row[x])] }
                    } else {
                        let row = UnsafeRawPointer(plane + y * rowStride).assumingMemoryBound(to: UInt16.self)
                        let top = t.count - 1
                        for x in 0..<w { o[x] = t[min(Int(UInt16(littleEndian: row[x])), top)] }
                    }
                    if let alphaPlane {
                        let a = alphaPlane + y * Int(alphaStride)
                        for x in 0..<w { o[x] = PNGDecoder.overWhite(o[x], alpha: a[x]) }
                    }
                }
            }
        }
        return (GrayImage(width: w, height: h, pixels: pixels), nil)
    }

    private func rgbImage(_ image: OpaquePointer, alpha: Bool) throws -> (gray: GrayImage, rgb: RGBImage?) {
        let w = Int(heif_image_get_width(image, heif_channel_interleaved))
        let h = Int(heif_image_get_height(image, heif_channel_interleaved))
        guard w == width, h == height else {
            throw ImageError(.corrupt, "corrupt HEIC: the decoded image is \(w)×\(h), the boxes say \(width)×\(height)")
        }
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride) else {
            throw ImageError(.corrupt, "corrupt HEIC: no colour samples")
        }
        let channels = alpha ? 4 : 3
        let pixels = PixelBuffer.make(count: w * h * 3) { out in
            for y in 0..<h {
                let row = plane + y * Int(stride)
                let o = out.baseAddress! + y * w * 3
                for x in 0..<w {
                    let p = row + x * channels
                    if alpha {
                        o[3 * x] = PNGDecoder.overWhite(p[0], alpha: p[3])
                        o[3 * x + 1] = PNGDecoder.overWhite(p[1], alpha: p[3])
                        o[3 * x + 2] = PNGDecoder.overWhite(p[2], alpha: p[3])
                    } else {
                        o[3 * x] = p[0]
                        o[3 * x + 1] = p[1]
                        o[3 * x + 2] = p[2]
                    }
                }
            }
        }
        let rgb = RGBImage(width: w, height: h, pixels: pixels)
        return (rgb.gray, rgb)
    }

    /// Whether the decoded samples use the full range; `nil` when the file does not say (libheif,
    /// like the HEVC default for still images from cameras, then treats them as full range).
    private func fullRange(_ image: OpaquePointer) -> Bool? {
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        var error = heif_image_get_nclx_color_profile(image, &nclx)
        if error.code != heif_error_Ok || nclx == nil {
            error = heif_image_handle_get_nclx_color_profile(handle, &nclx)
        }
        guard error.code == heif_error_Ok, let nclx else { return nil }
        defer { heif_nclx_color_profile_free(nclx) }
        return nclx.pointee.full_range_flag != 0
    }

    /// Sample value → 8-bit luma, for `bits`-bit samples (8 when 8 or fewer).
    static func lumaTable(bits: Int, limited: Bool) -> [UInt8] {
        let depth = max(8, min(bits, 16))
        let top = (1 << depth) - 1
        let scale = Double(1 << (depth - 8))
        return (0...top).map { v in
            let value: Double
            if limited {
                value = (Double(v) / scale - 16) * 255 / 219
            } else {
                value = Double(v) * 255 / Double(top)
            }
            return UInt8(max(0, min(255, value.rounded())))
        }
    }

    /// The orientation in the primary image's Exif metadata block, if any.
    private static func exifOrientation(_ handle: OpaquePointer) -> Orientation? {
        let count = Int(heif_image_handle_get_number_of_metadata_blocks(handle, "Exif"))
        guard count > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: min(count, 16))
        let found = Int(heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &ids, Int32(ids.count)))
        for id in ids.prefix(found) {
            let size = heif_image_handle_get_metadata_size(handle, id)
            guard size >= 8, size <= 1 << 20 else { continue }
            var bytes = [UInt8](repeating: 0, count: size)
            guard heif_image_handle_get_metadata(handle, id, &bytes).code == heif_error_Ok else { continue }
            // A 4-byte offset to the TIFF header comes first (ISO/IEC 23008-12, Annex A).
            let offset = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
            guard offset >= 0, offset < size - 4 else { continue }
            let orientation = bytes.withUnsafeBytes {
                Exif.orientation(tiff: UnsafeRawBufferPointer(rebasing: $0[(4 + offset)...]))
            }
            if let orientation { return orientation }
        }
        return nil
    }


    private static func imageError(_ error: heif_error) -> ImageError {
        let message = (error.message.map { String(cString: $0) } ?? "unknown error").trimmingWhitespace
        switch (error.code, error.subcode) {
        case (_, heif_suberror_End_of_data):
            return ImageError(.truncated, "truncated HEIC: \(message)")
        case (_, heif_suberror_Security_limit_exceeded):
            return ImageError(.tooLarge, "HEIC over libheif's limits: \(message)")
        case (heif_error_Memory_allocation_error, _):
            return ImageError(.outOfMemory, "out of memory decoding HEIC: \(message)")
        case (heif_error_Unsupported_feature, _), (heif_error_Unsupported_filetype, _):
            return ImageError(.unsupportedFormat, "unsupported HEIC variant: \(message)")
        default:
            return ImageError(.corrupt, "corrupt HEIC: \(message)")
        }
    }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        var text = Substring(self)
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}
