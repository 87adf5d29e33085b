/* HEVC decoding for libheif on the calling thread, within a CPU budget.

   libheif's own libde265 plugin decodes in a worker thread of libde265's, which the calling
   thread's CPU clock does not see, and nothing stops it within an image: a grid of hundreds of
   tiles is decoded whole however long it takes. This plugin, registered on each of Seer's libheif
   contexts with a higher priority than libheif's, decodes every coded picture (a grid's tile, an
   alpha plane) with no worker thread, and checks the calling thread's CPU time before each NAL
   unit is decoded: past the deadline it returns an error, libheif gives the image up, and
   `seer_heif_over_budget` says why. Strict: a picture libde265 decoded with a warning (damaged
   data it concealed) is an error. */

#include "CSeerShims.h"

#include <libde265/de265.h>
#include <libheif/heif.h>
#include <libheif/heif_plugin.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static __thread double seer_heif_deadline; /* thread CPU seconds; 0: none */
static __thread int seer_heif_over;

void seer_heif_set_cpu_limit(double seconds) {
    seer_heif_over = 0;
    seer_heif_deadline = seconds > 0 ? seer_thread_cpu_seconds() + seconds : 0;
}

int seer_heif_over_budget(void) { return seer_heif_over; }

typedef struct {
    de265_decoder_context *context;
    int strict;
} SeerHEVCDecoder;

static struct heif_error seer_heif_result(enum heif_error_code code, enum heif_suberror_code sub, const char *message) {
    struct heif_error error = {code, sub, message};
    return error;
}

static struct heif_error seer_heif_ok(void) { return seer_heif_result(heif_error_Ok, heif_suberror_Unspecified, "Success"); }

static struct heif_error seer_heif_plugin_error(const char *message) {
    return seer_heif_result(heif_error_Decoder_plugin_error, heif_suberror_Unspecified, message);
}

static const char *seer_hevc_name(void) { return "libde265 on the calling thread, within Seer's CPU budget"; }
static void seer_hevc_init(void) { de265_init(); }
static void seer_hevc_deinit(void) {}
static int seer_hevc_supports(enum heif_compression_format format) { return format == heif_compression_HEVC ? 200 : 0; }

static struct heif_error seer_hevc_new(void **out) {
    SeerHEVCDecoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return seer_heif_result(heif_error_Memory_allocation_error, heif_suberror_Unspecified, "no memory for an HEVC decoder");
    decoder->context = de265_new_decoder();
    if (!decoder->context) {
        free(decoder);
        return seer_heif_result(heif_error_Memory_allocation_error, heif_suberror_Unspecified, "no memory for an HEVC decoder");
    }
    /* No de265_start_worker_threads: de265_decode decodes on the calling thread. */
    *out = decoder;
    return seer_heif_ok();
}

static void seer_hevc_free(void *raw) {
    SeerHEVCDecoder *decoder = raw;
    if (!decoder) return;
    de265_free_decoder(decoder->context);
    free(decoder);
}

static void seer_hevc_set_strict(void *raw, int flag) { ((SeerHEVCDecoder *)raw)->strict = flag; }

/* libheif hands over NAL units each behind a 4-byte big-endian length. */
static struct heif_error seer_hevc_push(void *raw, const void *data, size_t size) {
    SeerHEVCDecoder *decoder = raw;
    const uint8_t *bytes = data;
    size_t at = 0;
    while (at < size) {
        if (size - at < 4)
            return seer_heif_result(heif_error_Decoder_plugin_error, heif_suberror_End_of_data, "a NAL unit's length is cut short");
        uint32_t length = (uint32_t)bytes[at] << 24 | (uint32_t)bytes[at + 1] << 16 | (uint32_t)bytes[at + 2] << 8 | bytes[at + 3];
        at += 4;
        if (length > size - at || length > INT32_MAX)
            return seer_heif_result(heif_error_Decoder_plugin_error, heif_suberror_End_of_data, "a NAL unit runs past its data");
        de265_error error = de265_push_NAL(decoder->context, bytes + at, (int)length, 0, NULL);
        if (!de265_isOK(error)) return seer_heif_plugin_error(de265_get_error_text(error));
        at += length;
    }
    return seer_heif_ok();
}

/* Copies a decoded picture's planes (luma alone for 4:0:0) into a new libheif image. */
static struct heif_error seer_hevc_image(const struct de265_image *picture, struct heif_image **out) {
    enum de265_chroma chroma = de265_get_chroma_format(picture);
    enum heif_chroma heifChroma;
    switch (chroma) {
    case de265_chroma_mono: heifChroma = heif_chroma_monochrome; break;
    case de265_chroma_420: heifChroma = heif_chroma_420; break;
    case de265_chroma_422: heifChroma = heif_chroma_422; break;
    case de265_chroma_444: heifChroma = heif_chroma_444; break;
    default: return seer_heif_plugin_error("an HEVC picture of an unknown chroma format");
    }
    int planes = chroma == de265_chroma_mono ? 1 : 3;
    int bits = de265_get_bits_per_pixel(picture, 0);
    for (int c = 1; c < planes; c++)
        if (de265_get_bits_per_pixel(picture, c) != bits)
            return seer_heif_result(heif_error_Unsupported_feature, heif_suberror_Unsupported_color_conversion,
                                    "HEVC planes of different bit depths");
    if (bits < 1 || bits > 16) return seer_heif_plugin_error("an HEVC picture of an unsupported bit depth");
    struct heif_image *image = NULL;
    struct heif_error error = heif_image_create(de265_get_image_width(picture, 0), de265_get_image_height(picture, 0),
                                                chroma == de265_chroma_mono ? heif_colorspace_monochrome : heif_colorspace_YCbCr,
                                                heifChroma, &image);
    if (error.code != heif_error_Ok) return error;
    static const enum heif_channel channels[3] = {heif_channel_Y, heif_channel_Cb, heif_channel_Cr};
    for (int c = 0; c < planes; c++) {
        int width = de265_get_image_width(picture, c), height = de265_get_image_height(picture, c);
        if (width <= 0 || height <= 0) {
            heif_image_release(image);
            return seer_heif_result(heif_error_Decoder_plugin_error, heif_suberror_Invalid_image_size, "an HEVC plane of no size");
        }
        error = heif_image_add_plane(image, channels[c], width, height, bits);
        if (error.code != heif_error_Ok) {
            heif_image_release(image);
            return error;
        }
        int sourceStride = 0, targetStride = 0;
        const uint8_t *source = de265_get_image_plane(picture, c, &sourceStride);
        uint8_t *target = heif_image_get_plane(image, channels[c], &targetStride);
        if (!source || !target) {
            heif_image_release(image);
            return seer_heif_plugin_error("an HEVC plane without samples");
        }
        size_t row = (size_t)width * (size_t)((bits + 7) / 8);
        for (int y = 0; y < height; y++)
            memcpy(target + (size_t)y * (size_t)targetStride, source + (size_t)y * (size_t)sourceStride, row);
    }
    *out = image;
    return seer_heif_ok();
}

static struct heif_error seer_hevc_decode(void *raw, struct heif_image **out) {
    SeerHEVCDecoder *decoder = raw;
    *out = NULL;
    de265_error error = de265_flush_data(decoder->context);
    if (!de265_isOK(error)) return seer_heif_plugin_error(de265_get_error_text(error));
    struct heif_image *image = NULL;
    int more = 1;
    while (more) {
        if (seer_heif_deadline > 0 && seer_thread_cpu_seconds() > seer_heif_deadline) {
            seer_heif_over = 1;
            if (image) heif_image_release(image);
            return seer_heif_plugin_error("over the decoding CPU budget");
        }
        more = 0;
        error = de265_decode(decoder->context, &more);
        if (error == DE265_ERROR_WAITING_FOR_INPUT_DATA) break;
        if (!de265_isOK(error)) {
            if (image) heif_image_release(image);
            return seer_heif_plugin_error(de265_get_error_text(error));
        }
        const struct de265_image *picture = de265_get_next_picture(decoder->context);
        if (picture) {
            struct heif_error converted = image ? seer_heif_ok() : seer_hevc_image(picture, &image);
            de265_release_next_picture(decoder->context);
            if (converted.code != heif_error_Ok) return converted;
        }
    }
    if (decoder->strict) {
        de265_error warning = de265_get_warning(decoder->context);
        if (warning != DE265_OK) {
            if (image) heif_image_release(image);
            return seer_heif_plugin_error(de265_get_error_text(warning));
        }
    }
    if (!image) return seer_heif_plugin_error("the coded data holds no picture");
    *out = image;
    return seer_heif_ok();
}

static const struct heif_decoder_plugin seer_hevc_plugin = {
    .plugin_api_version = 3,
    .get_plugin_name = seer_hevc_name,
    .init_plugin = seer_hevc_init,
    .deinit_plugin = seer_hevc_deinit,
    .does_support_format = seer_hevc_supports,
    .new_decoder = seer_hevc_new,
    .free_decoder = seer_hevc_free,
    .push_data = seer_hevc_push,
    .decode_image = seer_hevc_decode,
    .set_strict_decoding = seer_hevc_set_strict,
    .id_name = "seer-libde265",
};

int seer_heif_register(struct heif_context *context) {
    return heif_register_decoder(context, &seer_hevc_plugin).code == heif_error_Ok ? 0 : -1;
}
