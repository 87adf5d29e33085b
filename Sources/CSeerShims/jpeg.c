/* libjpeg reports fatal errors by calling error_exit, which must not return. Swift cannot catch a
   longjmp, so every libjpeg call that can fail runs here, under a setjmp, and comes back as a code. */
#include "CSeerShims.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

/* A progressive JPEG may hold any number of scans, each a full pass over the coefficients; a few
   hundred bytes can ask for millions. Real encoders write at most a few dozen. */
#define SEER_JPEG_MAX_SCANS 1000

/* The work a file may ask for, in blocks decoded over all its scans, as a multiple of the blocks in
   its frame. A baseline JPEG decodes each block once (1×); libjpeg's standard progressive script
   costs about 5× (a DC scan over every component, then each component's AC bands and refinements);
   real encoders stay well under 10×. A file that needs more, such as a thousand near-empty scans
   over a 100-megapixel frame, is refused before the excess work is done. */
#define SEER_JPEG_DEFAULT_WORK_FACTOR 24

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
    int lastScan;           /* the scan whose blocks were last counted */
    long long work;         /* blocks the scans so far ask to decode */
    long long budget;       /* the most blocks allowed; 0 until the frame is known */
    int workFactor;
    double deadline;        /* CLOCK_MONOTONIC seconds, 0 for none */
    double cpuDeadline;     /* CLOCK_THREAD_CPUTIME_ID seconds, 0 for none */
    char message[SEER_MESSAGE_MAX];
};

static double seer_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

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
    j_decompress_ptr c = &d->cinfo;
    if (c->input_scan_number > SEER_JPEG_MAX_SCANS) {
        snprintf(d->message, sizeof d->message, "the JPEG has more than %d scans", SEER_JPEG_MAX_SCANS);
        d->category = SEER_ERR_CORRUPT;
        longjmp(d->jump, 1);
    }
    /* Called before each row of input is consumed: a scan whose header has just been read is
       counted whole before any of its rows is decoded. */
    if (c->input_scan_number != d->lastScan && c->input_scan_number > 0) {
        d->lastScan = c->input_scan_number;
        if (d->budget == 0) {
            long long frame = 0;
            for (int i = 0; i < c->num_components; i++)
                frame += (long long)c->comp_info[i].width_in_blocks * (long long)c->comp_info[i].height_in_blocks;
            d->budget = frame * (d->workFactor > 0 ? d->workFactor : SEER_JPEG_DEFAULT_WORK_FACTOR);
        }
        for (int i = 0; i < c->comps_in_scan && i < MAX_COMPS_IN_SCAN; i++) {
            jpeg_component_info *comp = c->cur_comp_info[i];
            if (comp) d->work += (long long)comp->width_in_blocks * (long long)comp->height_in_blocks;
        }
        if (d->work > d->budget) {
            snprintf(d->message, sizeof d->message,
                     "the JPEG's %d scans ask to decode more than %d times the blocks of its %ux%u frame",
                     c->input_scan_number, d->workFactor > 0 ? d->workFactor : SEER_JPEG_DEFAULT_WORK_FACTOR,
                     c->image_width, c->image_height);
            d->category = SEER_ERR_TOO_LARGE;
            longjmp(d->jump, 1);
        }
    }
    if (d->deadline > 0 && seer_now() > d->deadline) {
        snprintf(d->message, sizeof d->message, "decoding took longer than its time limit");
        d->category = SEER_ERR_TOO_LARGE;
        longjmp(d->jump, 1);
    }
    if (d->cpuDeadline > 0 && seer_thread_cpu_seconds() > d->cpuDeadline) {
        snprintf(d->message, sizeof d->message, "decoding used more CPU time than its budget");
        d->category = SEER_ERR_TOO_LARGE;
        longjmp(d->jump, 1);
    }
}

static void seer_jpeg_emit_message(j_common_ptr cinfo, int level) {
    SeerJPEGDecoder *d = (SeerJPEGDecoder *)cinfo->client_data;
    if (level >= 0) return; /* trace messages */
    int code = cinfo->err->msg_code;
    /* Data that ends early is padded by libjpeg with grey; data that loses sync comes out as garbage.
       Neither is an image to pass on as good. */
    if (code == JWRN_JPEG_EOF) {
        snprintf(d->message, sizeof d->message, "the JPEG data ends before the image does");
        d->category = SEER_ERR_TRUNCATED;
        longjmp(d->jump, 1);
    }
    /* Stray bytes between header segments are harmless; stray bytes before a scan, a restart or the
       end, once entropy-coded data has been read, are data the decoder did not use: it lost sync, or
       the frame header claims fewer blocks than the data holds. */
    int strayAfterData = code == JWRN_EXTRANEOUS_DATA && d->cinfo.input_scan_number > 0 &&
                         (cinfo->err->msg_parm.i[1] == 0xD9 || cinfo->err->msg_parm.i[1] == 0xDA ||
                          (cinfo->err->msg_parm.i[1] >= 0xD0 && cinfo->err->msg_parm.i[1] <= 0xD7));
    if (code == JWRN_HIT_MARKER || code == JWRN_MUST_RESYNC || code == JWRN_BOGUS_PROGRESSION ||
        code == JWRN_NOT_SEQUENTIAL || code == JWRN_HUFF_BAD_CODE || code == JWRN_ARITH_BAD_CODE ||
        strayAfterData) {
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

/* Damage libjpeg accepts but that cannot be a real photo: a quantisation table of zeros (every
   coefficient multiplied away: a flat grey picture) and an arithmetic-coding frame that carries
   Huffman tables (Huffman-coded data read as arithmetic-coded gives garbage). */
static void seer_jpeg_check_header(SeerJPEGDecoder *d) {
    j_decompress_ptr c = &d->cinfo;
    for (int i = 0; i < c->num_components; i++) {
        int n = c->comp_info[i].quant_tbl_no;
        if (n < 0 || n >= NUM_QUANT_TBLS || !c->quant_tbl_ptrs[n]) continue; /* libjpeg checks later */
        int zeros = 0;
        for (int k = 0; k < DCTSIZE2; k++) zeros += c->quant_tbl_ptrs[n]->quantval[k] == 0;
        if (zeros == DCTSIZE2 || c->quant_tbl_ptrs[n]->quantval[0] == 0) {
            snprintf(d->message, sizeof d->message, "quantisation table %d of component %d is zero%s", n, i,
                     zeros == DCTSIZE2 ? " throughout" : " for the DC coefficient");
            d->category = SEER_ERR_CORRUPT;
            longjmp(d->jump, 1);
        }
    }
    if (c->arith_code) {
        for (int i = 0; i < NUM_HUFF_TBLS; i++) {
            if (c->dc_huff_tbl_ptrs[i] || c->ac_huff_tbl_ptrs[i]) {
                snprintf(d->message, sizeof d->message, "an arithmetic-coded frame carries Huffman tables");
                d->category = SEER_ERR_CORRUPT;
                longjmp(d->jump, 1);
            }
        }
    }
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
    long long blocks = 0;
    for (int i = 0; i < d->cinfo.num_components; i++) {
        const jpeg_component_info *comp = &d->cinfo.comp_info[i];
        long long h = comp->h_samp_factor > 0 ? comp->h_samp_factor : 1, v = comp->v_samp_factor > 0 ? comp->v_samp_factor : 1;
        blocks += ((comp->width_in_blocks + h - 1) / h * h) * ((comp->height_in_blocks + v - 1) / v * v);
    }
    info->coefficientBlocks = blocks;
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
    seer_jpeg_check_header(d);
    seer_jpeg_fill(d, info);
    return SEER_OK;
}

int seer_jpeg_read_header(SeerJPEGDecoder *d, const uint8_t *data, size_t size, SeerJPEGInfo *info) {
    if (!d || !data || size == 0) return SEER_ERR_STATE;
    if (setjmp(d->jump)) return d->category;
    jpeg_mem_src(&d->cinfo, data, (unsigned long)size);
    jpeg_read_header(&d->cinfo, TRUE);
    seer_jpeg_check_header(d);
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

void seer_jpeg_set_limits(SeerJPEGDecoder *d, int workFactor, double seconds) {
    if (!d) return;
    d->workFactor = workFactor;
    d->deadline = seconds > 0 ? seer_now() + seconds : 0;
}

void seer_jpeg_set_cpu_limit(SeerJPEGDecoder *d, double seconds) {
    if (d) d->cpuDeadline = seconds > 0 ? seer_thread_cpu_seconds() + seconds : 0;
}

long long seer_jpeg_work(const SeerJPEGDecoder *d) { return d ? d->work : 0; }

const char *seer_jpeg_message(const SeerJPEGDecoder *d) { return d ? d->message : "no decoder"; }

int seer_jpeg_warnings(const SeerJPEGDecoder *d) { return d ? d->warnings : 0; }
