/* libpng's full API reports errors by longjmp: every call that can fail runs here under a setjmp. */
#include "CSeerShims.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <png.h>

struct SeerPNGDecoder {
    png_structp png;
    png_infop info;
    const uint8_t *data;
    size_t size;
    size_t offset;
    uint32_t maxWidth;
    uint32_t maxHeight;
    uint64_t maxPixels;     /* the caller's pixel limit, 0 for none */
    int overLimit;          /* the header says more pixels than maxPixels: nothing more is read */
    int category;
    int headerRead;
    int colorType;
    int paletteChannels;    /* 3 or 4 when palette indices are expanded here, else 0 */
    double deadline;        /* CLOCK_MONOTONIC seconds, 0 for none */
    double cpuDeadline;     /* CLOCK_THREAD_CPUTIME_ID seconds, 0 for none */
    char message[SEER_MESSAGE_MAX];
};

static double seer_png_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Called by libpng after each row: stops a decode that runs past its time or CPU limit. */
static void seer_png_row_done(png_structp png, png_uint_32 row, int pass) {
    (void)row;
    (void)pass;
    SeerPNGDecoder *d = (SeerPNGDecoder *)png_get_io_ptr(png);
    if (d->deadline > 0 && seer_png_now() > d->deadline) {
        d->category = SEER_ERR_TOO_LARGE;
        snprintf(d->message, sizeof d->message, "decoding took longer than its time limit");
        png_error(png, "time limit");
    }
    if (d->cpuDeadline > 0 && seer_thread_cpu_seconds() > d->cpuDeadline) {
        d->category = SEER_ERR_TOO_LARGE;
        snprintf(d->message, sizeof d->message, "decoding used more CPU time than its budget");
        png_error(png, "CPU limit");
    }
}

static void seer_png_error(png_structp png, png_const_charp text) {
    SeerPNGDecoder *d = (SeerPNGDecoder *)png_get_error_ptr(png);
    if (d->category == SEER_OK) d->category = SEER_ERR_CORRUPT;
    if (d->message[0] == 0) snprintf(d->message, sizeof d->message, "%s", text ? text : "PNG error");
    png_longjmp(png, 1);
}

static void seer_png_warning(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;
}

static void seer_png_read(png_structp png, png_bytep out, size_t length) {
    SeerPNGDecoder *d = (SeerPNGDecoder *)png_get_io_ptr(png);
    if (length > d->size - d->offset) {
        d->category = SEER_ERR_TRUNCATED;
        snprintf(d->message, sizeof d->message, "the PNG data ends before the image does");
        png_error(png, "truncated");
    }
    memcpy(out, d->data + d->offset, length);
    d->offset += length;
}

SeerPNGDecoder *seer_png_create(const uint8_t *data, size_t size, uint32_t maxWidth, uint32_t maxHeight) {
    SeerPNGDecoder *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->data = data;
    d->size = size;
    d->maxWidth = maxWidth;
    d->maxHeight = maxHeight;
    d->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, d, seer_png_error, seer_png_warning);
    if (!d->png) {
        free(d);
        return NULL;
    }
    d->info = png_create_info_struct(d->png);
    if (!d->info) {
        png_destroy_read_struct(&d->png, NULL, NULL);
        free(d);
        return NULL;
    }
    png_set_read_fn(d->png, d, seer_png_read);
    return d;
}

void seer_png_destroy(SeerPNGDecoder *d) {
    if (!d) return;
    png_destroy_read_struct(&d->png, &d->info, NULL);
    free(d);
}

int seer_png_read_header(SeerPNGDecoder *d, SeerPNGInfo *out) {
    if (!d || d->headerRead) return SEER_ERR_STATE;
    if (setjmp(png_jmpbuf(d->png))) return d->category ? d->category : SEER_ERR_CORRUPT;
    /* Dimensions are checked by the caller against its pixel limit after this call and before any
       image-sized allocation; libpng itself allocates nothing image-sized while reading the header. */
    /* libpng's default user limits (1 000 000 pixels a side) would refuse a valid 1 000 001×1 image:
       the caller's pixel limit decides, so libpng's own is raised to the format's (2^31 - 1). */
    png_set_user_limits(d->png, d->maxWidth ? d->maxWidth : 0x7fffffffu, d->maxHeight ? d->maxHeight : 0x7fffffffu);
    png_set_chunk_malloc_max(d->png, 64u * 1024u * 1024u);
    /* Ancillary chunks Seer never uses are skipped unread: their bytes are passed over (and their
       CRCs checked), never inflated. A compressed text or ICC chunk can hold gigabytes behind a few
       kilobytes (zTXt, iTXt, iCCP); eXIf, tRNS and the critical chunks are still read. */
    static const png_byte skipped[] = {
        'i', 'C', 'C', 'P', 0, 'i', 'T', 'X', 't', 0, 't', 'E', 'X', 't', 0, 'z', 'T', 'X', 't', 0,
        's', 'P', 'L', 'T', 0, 'h', 'I', 'S', 'T', 0,
    };
    png_set_keep_unknown_chunks(d->png, PNG_HANDLE_CHUNK_NEVER, skipped, (int)(sizeof skipped / 5));
    png_set_crc_action(d->png, PNG_CRC_DEFAULT, PNG_CRC_DEFAULT);
    png_read_info(d->png, d->info);
    d->headerRead = 1;

    png_uint_32 width = 0, height = 0;
    int depth = 0, color = 0, interlace = 0;
    png_get_IHDR(d->png, d->info, &width, &height, &depth, &color, &interlace, NULL, NULL);
    d->colorType = color;
    if (d->maxPixels && (uint64_t)width * (uint64_t)height > d->maxPixels) {
        /* Over the caller's pixel limit: the header is all that is read. libpng's row buffers, which
           png_read_update_info would allocate by the width, are never set up. */
        d->overLimit = 1;
        out->width = width;
        out->height = height;
        out->bitDepth = depth;
        out->colorType = color;
        out->interlaced = interlace != PNG_INTERLACE_NONE;
        out->channels = png_get_channels(d->png, d->info);
        out->exif = NULL;
        out->exifLength = 0;
        return SEER_OK;
    }
    if (d->deadline > 0 || d->cpuDeadline > 0) png_set_read_status_fn(d->png, seer_png_row_done);

    /* Palette images come out as one index a byte and are expanded in seer_png_read_image, where an
       index past the end of the palette is caught (libpng would expand it to black, unreported). */
    if (color == PNG_COLOR_TYPE_PALETTE) {
        if (depth < 8) png_set_packing(d->png);
        d->paletteChannels = png_get_valid(d->png, d->info, PNG_INFO_tRNS) ? 4 : 3;
    }
    if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(d->png);
    if (color != PNG_COLOR_TYPE_PALETTE && png_get_valid(d->png, d->info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(d->png);
    if (depth == 16) png_set_scale_16(d->png);
    if (interlace != PNG_INTERLACE_NONE) png_set_interlace_handling(d->png);
    png_read_update_info(d->png, d->info);

    out->width = width;
    out->height = height;
    out->bitDepth = depth;
    out->colorType = color;
    out->interlaced = interlace != PNG_INTERLACE_NONE;
    out->channels = d->paletteChannels ? d->paletteChannels : png_get_channels(d->png, d->info);
    out->exif = NULL;
    out->exifLength = 0;
#ifdef PNG_eXIf_SUPPORTED
    png_bytep exif = NULL;
    png_uint_32 exifLength = 0;
    if (png_get_eXIf_1(d->png, d->info, &exifLength, &exif) && exif) {
        out->exif = exif;
        out->exifLength = exifLength;
    }
#endif
    if (png_get_rowbytes(d->png, d->info) != (size_t)width * (size_t)png_get_channels(d->png, d->info)) {
        snprintf(d->message, sizeof d->message, "unexpected PNG row size after conversion");
        return SEER_ERR_UNSUPPORTED;
    }
    return SEER_OK;
}

/* Expands one row of palette indices, read at row + indexOffset, to RGB(A) from the left: each
   pixel's colour is written no further right than its own index, which is read first. An index
   past the end of the palette is an error. */
static int seer_png_expand_palette(SeerPNGDecoder *d, uint8_t *row, size_t indexOffset, png_uint_32 width) {
    int channels = d->paletteChannels;
    png_colorp palette = NULL;
    int entries = 0;
    png_get_PLTE(d->png, d->info, &palette, &entries);
    png_bytep alpha = NULL;
    int alphas = 0;
    if (channels == 4) png_get_tRNS(d->png, d->info, &alpha, &alphas, NULL);
    const uint8_t *index = row + indexOffset;
    for (png_uint_32 x = 0; x < width; x++) {
        int i = index[x];
        if (i >= entries || !palette) {
            snprintf(d->message, sizeof d->message, "a pixel uses palette index %d, the palette has %d entries", i, entries);
            return SEER_ERR_CORRUPT;
        }
        uint8_t *o = row + (size_t)x * (size_t)channels;
        png_color colour = palette[i];
        o[0] = colour.red;
        o[1] = colour.green;
        o[2] = colour.blue;
        if (channels == 4) o[3] = i < alphas && alpha ? alpha[i] : 255;
    }
    return SEER_OK;
}

int seer_png_read_image(SeerPNGDecoder *d, uint8_t *buffer, size_t stride) {
    if (!d || !d->headerRead || !buffer) return SEER_ERR_STATE;
    if (d->overLimit) return SEER_ERR_TOO_LARGE;
    png_uint_32 height = png_get_image_height(d->png, d->info);
    png_bytepp rows = malloc(sizeof(png_bytep) * (height ? height : 1));
    if (!rows) return SEER_ERR_NO_MEMORY;
    if (setjmp(png_jmpbuf(d->png))) {
        free(rows);
        return d->category ? d->category : SEER_ERR_CORRUPT;
    }
    png_uint_32 width = png_get_image_width(d->png, d->info);
    int channels = d->paletteChannels;
    /* Palette indices are read into the end of each output row, then expanded in place from the left:
       each pixel's colour is written no further right than its own index, which is read first. */
    size_t indexOffset = channels ? (size_t)(channels - 1) * width : 0;
    for (png_uint_32 y = 0; y < height; y++) rows[y] = buffer + (size_t)y * stride + indexOffset;
    png_read_image(d->png, rows);
    free(rows);
    if (channels) {
        for (png_uint_32 y = 0; y < height; y++) {
            int status = seer_png_expand_palette(d, buffer + (size_t)y * stride, indexOffset, width);
            if (status != SEER_OK) return status;
        }
    }
    /* Reading past the image data checks the remaining chunks' CRCs; their absence is harmless. */
    return SEER_OK;
}

void seer_png_set_deadline(SeerPNGDecoder *d, double seconds) {
    if (d) d->deadline = seconds > 0 ? seer_png_now() + seconds : 0;
}

const char *seer_png_message(const SeerPNGDecoder *d) { return d ? d->message : "no decoder"; }

void seer_png_set_cpu_limit(SeerPNGDecoder *d, double seconds) {
    if (d) d->cpuDeadline = seconds > 0 ? seer_thread_cpu_seconds() + seconds : 0;
}

int seer_png_read_row(SeerPNGDecoder *d, uint8_t *row) {
    if (!d || !d->headerRead || !row) return SEER_ERR_STATE;
    if (d->overLimit) return SEER_ERR_TOO_LARGE;
    if (setjmp(png_jmpbuf(d->png))) return d->category ? d->category : SEER_ERR_CORRUPT;
    png_uint_32 width = png_get_image_width(d->png, d->info);
    size_t indexOffset = d->paletteChannels ? (size_t)(d->paletteChannels - 1) * width : 0;
    png_read_row(d->png, row + indexOffset, NULL);
    return d->paletteChannels ? seer_png_expand_palette(d, row, indexOffset, width) : SEER_OK;
}

void seer_png_set_max_pixels(SeerPNGDecoder *d, uint64_t pixels) {
    if (d) d->maxPixels = pixels;
}
