/* libjpeg reports fatal errors by calling error_exit, which must not return. Swift cannot catch a
   longjmp, so every libjpeg call that can fail runs here, under a setjmp, and comes back as a code. */
#include "CSeerShims.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

/* A progressive JPEG may hold any number of scans, each a full pass over the coefficients; a few
   hundred bytes can ask for millions. Real encoders write at most a few dozen. */
#define SEER_JPEG_MAX_SCANS 1000

/* Reads the JPEG straight from a file descriptor through one reused buffer, as djpeg does through
   stdio: no copy of the whole file in memory. */
typedef struct {
    struct jpeg_source_mgr pub;
    int fd;
    int started;
    JOCTET buffer[1 << 16];
} SeerFDSource;

struct SeerJPEGDecoder {
    struct jpeg_decompress_struct cinfo;
    SeerFDSource source;
    struct jpeg_error_mgr err;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    int created;
    int started;
    int category;
    int warnings;
    char message[SEER_MESSAGE_MAX];
};

static void seer_jpeg_format(SeerJPEGDecoder *d) {
    char buffer[JMSG_LENGTH_MAX];
    d->err.format_message((j_common_ptr)&d->cinfo, buffer);
    snprintf(d->message, sizeof d->message, "%s", buffer);
}

static int seer_jpeg_category(int code) {
    switch (code) {
    case JERR_OUT_OF_MEMORY:
    case JERR_VIRTUAL_BUG:
        return SEER_ERR_NO_MEMORY;
    case JERR_INPUT_EMPTY:
    case JERR_INPUT_EOF:
        return SEER_ERR_TRUNCATED;
    case JERR_BAD_PRECISION:
    case JERR_NOT_COMPILED:
    case JERR_NO_ARITH_TABLE:
        return SEER_ERR_UNSUPPORTED;
    default:
        return SEER_ERR_CORRUPT;
    }
}

static void seer_jpeg_error_exit(j_common_ptr cinfo) {
    SeerJPEGDecoder *d = (SeerJPEGDecoder *)cinfo->client_data;
    seer_jpeg_format(d);
    d->category = seer_jpeg_category(cinfo->err->msg_code);
    longjmp(d->jump, 1);
}

static void seer_jpeg_progress(j_common_ptr cinfo) {
    SeerJPEGDecoder *d = (SeerJPEGDecoder *)cinfo->client_data;
    if (d->cinfo.input_scan_number > SEER_JPEG_MAX_SCANS) {
        snprintf(d->message, sizeof d->message, "the JPEG has more than %d scans", SEER_JPEG_MAX_SCANS);
        d->category = SEER_ERR_CORRUPT;
        longjmp(d->jump, 1);
    }
}

static void seer_jpeg_emit_message(j_common_ptr cinfo, int level) {
    SeerJPEGDecoder *d = (SeerJPEGDecoder *)cinfo->client_data;
    if (level >= 0) return; /* trace messages */
    int code = cinfo->err->msg_code;
    /* Data that ends early is padded by libjpeg with grey; data that loses sync comes out as garbage.
       Neither is an image to pass on as good. Stray bytes between markers are harmless. */
    if (code == JWRN_JPEG_EOF) {
        snprintf(d->message, sizeof d->message, "the JPEG data ends before the image does");
        d->category = SEER_ERR_TRUNCATED;
        longjmp(d->jump, 1);
    }
    if (code == JWRN_HIT_MARKER || code == JWRN_MUST_RESYNC || code == JWRN_BOGUS_PROGRESSION ||
        code == JWRN_NOT_SEQUENTIAL) {
        seer_jpeg_format(d);
        d->category = SEER_ERR_CORRUPT;
        longjmp(d->jump, 1);
    }
    d->warnings += 1;
}

SeerJPEGDecoder *seer_jpeg_create(void) {
    SeerJPEGDecoder *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->cinfo.err = jpeg_std_error(&d->err);
    d->err.error_exit = seer_jpeg_error_exit;
    d->err.emit_message = seer_jpeg_emit_message;
    d->cinfo.client_data = d;
    if (setjmp(d->jump)) {
        free(d);
        return NULL;
    }
    jpeg_create_decompress(&d->cinfo);
    d->created = 1;
    d->progress.progress_monitor = seer_jpeg_progress;
    d->cinfo.progress = &d->progress;
    return d;
}

void seer_jpeg_destroy(SeerJPEGDecoder *d) {
    if (!d) return;
    if (d->created) jpeg_destroy_decompress(&d->cinfo);
    free(d);
}

static void seer_jpeg_fill(SeerJPEGDecoder *d, SeerJPEGInfo *info) {
    info->width = (int)d->cinfo.image_width;
    info->height = (int)d->cinfo.image_height;
    info->components = d->cinfo.num_components;
    info->colorSpace = (int)d->cinfo.jpeg_color_space;
    info->progressive = d->cinfo.progressive_mode ? 1 : 0;
    info->outputWidth = (int)d->cinfo.output_width;
    info->outputHeight = (int)d->cinfo.output_height;
    info->outputComponents = d->cinfo.output_components;
    info->adobeInverted = d->cinfo.saw_Adobe_marker ? 1 : 0;
}

static void seer_fd_init(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean seer_fd_fill(j_decompress_ptr cinfo) {
    SeerFDSource *src = (SeerFDSource *)cinfo->src;
    ssize_t n;
    do {
        n = read(src->fd, src->buffer, sizeof src->buffer);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) {
        if (!src->started) ERREXIT(cinfo, JERR_INPUT_EMPTY);
        WARNMS(cinfo, JWRN_JPEG_EOF); /* turned into a truncation error by emit_message */
        src->buffer[0] = (JOCTET)0xFF;
        src->buffer[1] = (JOCTET)JPEG_EOI;
        n = 2;
    }
    src->pub.next_input_byte = src->buffer;
    src->pub.bytes_in_buffer = (size_t)n;
    src->started = 1;
    return TRUE;
}

static void seer_fd_skip(j_decompress_ptr cinfo, long count) {
    SeerFDSource *src = (SeerFDSource *)cinfo->src;
    if (count <= 0) return;
    while (count > (long)src->pub.bytes_in_buffer) {
        count -= (long)src->pub.bytes_in_buffer;
        seer_fd_fill(cinfo);
    }
    src->pub.next_input_byte += count;
    src->pub.bytes_in_buffer -= (size_t)count;
}

static void seer_fd_term(j_decompress_ptr cinfo) { (void)cinfo; }

int seer_jpeg_read_header_fd(SeerJPEGDecoder *d, int fd, SeerJPEGInfo *info) {
    if (!d || fd < 0) return SEER_ERR_STATE;
    if (setjmp(d->jump)) return d->category;
    d->source.fd = fd;
    d->source.started = 0;
    d->source.pub.init_source = seer_fd_init;
    d->source.pub.fill_input_buffer = seer_fd_fill;
    d->source.pub.skip_input_data = seer_fd_skip;
    d->source.pub.resync_to_restart = jpeg_resync_to_restart;
    d->source.pub.term_source = seer_fd_term;
    d->source.pub.bytes_in_buffer = 0;
    d->source.pub.next_input_byte = NULL;
    d->cinfo.src = &d->source.pub;
    jpeg_read_header(&d->cinfo, TRUE);
    seer_jpeg_fill(d, info);
    return SEER_OK;
}

int seer_jpeg_read_header(SeerJPEGDecoder *d, const uint8_t *data, size_t size, SeerJPEGInfo *info) {
    if (!d || !data || size == 0) return SEER_ERR_STATE;
    if (setjmp(d->jump)) return d->category;
    jpeg_mem_src(&d->cinfo, data, (unsigned long)size);
    jpeg_read_header(&d->cinfo, TRUE);
    seer_jpeg_fill(d, info);
    return SEER_OK;
}

int seer_jpeg_start(SeerJPEGDecoder *d, int mode, int scaleDenom, int fastDCT, SeerJPEGInfo *info) {
    if (!d || d->started) return SEER_ERR_STATE;
    if (setjmp(d->jump)) return d->category;
    J_COLOR_SPACE space = d->cinfo.jpeg_color_space;
    int cmyk = (space == JCS_CMYK || space == JCS_YCCK);
    if (mode == 0) {
        /* CMYK cannot be converted to grey by libjpeg; the caller converts native CMYK. */
        d->cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_GRAYSCALE;
    } else if (mode == 1) {
        d->cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
    } else {
        d->cinfo.out_color_space = cmyk ? JCS_CMYK : (space == JCS_GRAYSCALE ? JCS_GRAYSCALE : JCS_RGB);
    }
    d->cinfo.scale_num = 1;
    d->cinfo.scale_denom = (unsigned int)(scaleDenom == 2 || scaleDenom == 4 || scaleDenom == 8 ? scaleDenom : 1);
    d->cinfo.dct_method = fastDCT ? JDCT_IFAST : JDCT_ISLOW;
    d->cinfo.do_fancy_upsampling = fastDCT ? FALSE : TRUE;
    jpeg_start_decompress(&d->cinfo);
    d->started = 1;
    seer_jpeg_fill(d, info);
    return SEER_OK;
}

int seer_jpeg_read_all(SeerJPEGDecoder *d, uint8_t *buffer, size_t stride) {
    if (!d || !d->started || !buffer) return SEER_ERR_STATE;
    if (setjmp(d->jump)) return d->category;
    JSAMPROW rows[16];
    while (d->cinfo.output_scanline < d->cinfo.output_height) {
        JDIMENSION first = d->cinfo.output_scanline;
        JDIMENSION left = d->cinfo.output_height - first;
        JDIMENSION want = left < 16 ? left : 16;
        for (JDIMENSION i = 0; i < want; i++) rows[i] = buffer + (size_t)(first + i) * stride;
        if (jpeg_read_scanlines(&d->cinfo, rows, want) == 0) {
            snprintf(d->message, sizeof d->message, "the JPEG decoder stopped before the last row");
            return SEER_ERR_TRUNCATED;
        }
    }
    jpeg_finish_decompress(&d->cinfo);
    return SEER_OK;
}

int seer_jpeg_read_rows(SeerJPEGDecoder *d, uint8_t *buffer, size_t stride, int maxRows, int *rowsRead) {
    if (!d || !d->started || !buffer || !rowsRead || maxRows <= 0) return SEER_ERR_STATE;
    *rowsRead = 0;
    if (setjmp(d->jump)) return d->category;
    JSAMPROW rows[16];
    int read = 0;
    while (read < maxRows && d->cinfo.output_scanline < d->cinfo.output_height) {
        JDIMENSION left = d->cinfo.output_height - d->cinfo.output_scanline;
        JDIMENSION want = left < 16 ? left : 16;
        if ((int)want > maxRows - read) want = (JDIMENSION)(maxRows - read);
        for (JDIMENSION i = 0; i < want; i++) rows[i] = buffer + (size_t)(read + (int)i) * stride;
        JDIMENSION got = jpeg_read_scanlines(&d->cinfo, rows, want);
        if (got == 0) {
            snprintf(d->message, sizeof d->message, "the JPEG decoder stopped before the last row");
            return SEER_ERR_TRUNCATED;
        }
        read += (int)got;
        *rowsRead = read;
    }
    if (d->cinfo.output_scanline >= d->cinfo.output_height) jpeg_finish_decompress(&d->cinfo);
    return SEER_OK;
}

const char *seer_jpeg_message(const SeerJPEGDecoder *d) { return d ? d->message : "no decoder"; }

int seer_jpeg_warnings(const SeerJPEGDecoder *d) { return d ? d->warnings : 0; }
