#ifndef CSEERSHIMS_H
#define CSEERSHIMS_H

#include <stddef.h>
#include <stdint.h>

/* Error categories shared by the JPEG and PNG decoders. */
enum {
    SEER_OK = 0,
    SEER_ERR_CORRUPT = 1,       /* the data breaks the format's rules */
    SEER_ERR_TRUNCATED = 2,     /* the data ends before the image does */
    SEER_ERR_NO_MEMORY = 3,     /* an allocation failed */
    SEER_ERR_UNSUPPORTED = 4,   /* valid, but a variant this build cannot decode */
    SEER_ERR_TOO_LARGE = 5,     /* dimensions over the caller's limit */
    SEER_ERR_STATE = 6          /* called out of order */
};

#define SEER_MESSAGE_MAX 200

/* ---------- The C library's allocator ---------- */

/* Lets glibc keep freed blocks of up to `largestBlock` bytes in its heaps, and up to `keptFree`
   bytes free at a heap's top, instead of returning them to the kernel (mallopt M_MMAP_THRESHOLD
   and M_TRIM_THRESHOLD). For a process, not a library: the executable decides. Returns 1 when
   both settings took, 0 otherwise (another C library: nothing is changed). */
int seer_keep_freed_buffers(size_t largestBlock, size_t keptFree);

/* The calling thread's CPU time in seconds (CLOCK_THREAD_CPUTIME_ID): what every decoder's CPU
   deadline is measured in. */
double seer_thread_cpu_seconds(void);

/* ---------- JPEG (libjpeg-turbo) ---------- */

typedef struct SeerJPEGDecoder SeerJPEGDecoder;

typedef struct SeerJPEGInfo {
    int width;              /* stored width */
    int height;             /* stored height */
    int components;         /* components in the file */
    int colorSpace;         /* J_COLOR_SPACE of the file */
    int progressive;        /* 1 when progressive */
    int outputWidth;        /* after seer_jpeg_start: scaled width */
    int outputHeight;       /* after seer_jpeg_start: scaled height */
    int outputComponents;   /* after seer_jpeg_start: 1 (grey), 3 (RGB) or 4 (CMYK) */
    int adobeInverted;      /* 1 when an Adobe marker says CMYK is stored inverted */
    long long coefficientBlocks; /* the DCT blocks of every component, padded as libjpeg stores them:
                                    a progressive decode holds 128 bytes for each until its last scan */
} SeerJPEGInfo;

/* Allocates a decoder; NULL when memory is short. */
SeerJPEGDecoder *seer_jpeg_create(void);
/* Frees the decoder and everything libjpeg holds for it. */
void seer_jpeg_destroy(SeerJPEGDecoder *decoder);
/* Reads the header of `size` bytes at `data` (kept borrowed until destroy). */
int seer_jpeg_read_header(SeerJPEGDecoder *decoder, const uint8_t *data, size_t size, SeerJPEGInfo *info);
/* Reads the header from an open file descriptor positioned at the start of the JPEG; the decoder
   keeps reading from it (through a 64 KiB buffer) until the image is done. */
int seer_jpeg_read_header_fd(SeerJPEGDecoder *decoder, int fd, SeerJPEGInfo *info);
/* Starts decompression. mode 0 = grey, 1 = RGB, 2 = native (CMYK stays CMYK).
   scaleDenom is 1, 2, 4 or 8 (DCT scaling). fastDCT picks the integer fast IDCT. */
int seer_jpeg_start(SeerJPEGDecoder *decoder, int mode, int scaleDenom, int fastDCT, SeerJPEGInfo *info);
/* Reads every remaining scanline into `buffer`, rows `stride` bytes apart. */
int seer_jpeg_read_all(SeerJPEGDecoder *decoder, uint8_t *buffer, size_t stride);
/* Reads up to maxRows further scanlines into buffer (row i at buffer + i * stride); *rowsRead says
   how many. After the last row the decompression is finished. */
int seer_jpeg_read_rows(SeerJPEGDecoder *decoder, uint8_t *buffer, size_t stride, int maxRows, int *rowsRead);
/* Bounds the work of one decode: the blocks all scans together may decode, as a multiple of the
   frame's blocks (0 for the default, 24), and the wall time in seconds from now (0 for none). Over
   either, decoding stops with SEER_ERR_TOO_LARGE. Call before seer_jpeg_start. */
void seer_jpeg_set_limits(SeerJPEGDecoder *decoder, int workFactor, double seconds);
/* Stops decoding with SEER_ERR_TOO_LARGE once the calling thread has used `seconds` of CPU time
   from now (0: no limit). Checked as libjpeg reports progress (every few rows). */
void seer_jpeg_set_cpu_limit(SeerJPEGDecoder *decoder, double seconds);
/* The blocks the scans read so far ask to decode. */
long long seer_jpeg_work(const SeerJPEGDecoder *decoder);
/* The last error's text. */
const char *seer_jpeg_message(const SeerJPEGDecoder *decoder);
/* The count of corrupt-data warnings libjpeg tolerated. */
int seer_jpeg_warnings(const SeerJPEGDecoder *decoder);

/* ---------- HEIC (libheif, libde265) ---------- */

struct heif_context;

/* Registers on `context` Seer's HEVC decoder: libde265 on the calling thread, strict, stopped by
   the CPU limit below between NAL units. 0 on success. */
int seer_heif_register(struct heif_context *context);
/* Sets this thread's HEVC decoding limit to `seconds` of its CPU time from now (0: none), and
   clears the flag below. */
void seer_heif_set_cpu_limit(double seconds);
/* 1 when this thread's last HEVC decode was stopped by the limit. */
int seer_heif_over_budget(void);

/* ---------- PNG (libpng) ---------- */

typedef struct SeerPNGDecoder SeerPNGDecoder;

typedef struct SeerPNGInfo {
    uint32_t width;
    uint32_t height;
    int bitDepth;
    int colorType;          /* PNG_COLOR_TYPE_* */
    int interlaced;
    int channels;           /* after transforms: 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA (8 bits each) */
    const uint8_t *exif;    /* eXIf chunk, borrowed, NULL when absent */
    uint32_t exifLength;
} SeerPNGInfo;

SeerPNGDecoder *seer_png_create(const uint8_t *data, size_t size, uint32_t maxWidth, uint32_t maxHeight);
void seer_png_destroy(SeerPNGDecoder *decoder);
/* Reads the header and sets up 8-bit output (palette and tRNS expanded, 16 bits scaled). */
int seer_png_read_header(SeerPNGDecoder *decoder, SeerPNGInfo *info);
/* Reads the whole image (interlaced too) into `buffer`, rows `stride` bytes apart. */
int seer_png_read_image(SeerPNGDecoder *decoder, uint8_t *buffer, size_t stride);
/* Reads the next row (width × channels bytes) into `row`: for images that are not interlaced, once
   per row, instead of seer_png_read_image. */
int seer_png_read_row(SeerPNGDecoder *decoder, uint8_t *row);
/* Stops decoding with SEER_ERR_TOO_LARGE once `seconds` from now have passed (0: no limit). Call
   before seer_png_read_header. */
void seer_png_set_deadline(SeerPNGDecoder *decoder, double seconds);
/* Stops decoding with SEER_ERR_TOO_LARGE once the calling thread has used `seconds` of CPU time
   from now (0: no limit), checked after each row. Call before seer_png_read_header. */
void seer_png_set_cpu_limit(SeerPNGDecoder *decoder, double seconds);
/* An image with more pixels than this has only its header read (libpng sets up no row buffers);
   reading its pixels is SEER_ERR_TOO_LARGE. Call before seer_png_read_header. */
void seer_png_set_max_pixels(SeerPNGDecoder *decoder, uint64_t pixels);
const char *seer_png_message(const SeerPNGDecoder *decoder);

#endif
