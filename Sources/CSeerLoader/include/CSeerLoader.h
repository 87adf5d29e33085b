#ifndef CSEERLOADER_H
#define CSEERLOADER_H

#include <stddef.h>

/* The libraries Seer loads on first use rather than at start-up. */
enum {
    SEER_LIBRARY_TESSERACT = 0,
    SEER_LIBRARY_ZBAR = 1,
    SEER_LIBRARY_HEIF = 2,
    SEER_LIBRARY_WEBP = 3,
    SEER_LIBRARY_WEBPDEMUX = 4
};

/* Loads `library` (once; later calls are cheap). Returns 0 when it is loaded, else -1 with the
   reason in `message`. Call this before any function of the library: their stubs stop the process
   when the library cannot be loaded. */
int seer_loader_open(int library, char *message, size_t size);

#endif
