#include "loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char *const seer_required_tesseract[];
extern const char *const seer_required_zbar[];
extern const char *const seer_required_heif[];
extern const char *const seer_required_webp[];
extern const char *const seer_required_webpdemux[];

typedef struct {
    const char *sonames[3];
    const char *const *required;
    pthread_once_t once;
    void *handle;
    char error[256];
} SeerLibrary;

static SeerLibrary libraries[] = {
    [SEER_LIBRARY_TESSERACT] = {{"libtesseract.so.5", "libtesseract.so", NULL}, seer_required_tesseract, PTHREAD_ONCE_INIT, NULL, ""},
    [SEER_LIBRARY_ZBAR] = {{"libzbar.so.0", "libzbar.so", NULL}, seer_required_zbar, PTHREAD_ONCE_INIT, NULL, ""},
    [SEER_LIBRARY_HEIF] = {{"libheif.so.1", "libheif.so", NULL}, seer_required_heif, PTHREAD_ONCE_INIT, NULL, ""},
    [SEER_LIBRARY_WEBP] = {{"libwebp.so.7", "libwebp.so", NULL}, seer_required_webp, PTHREAD_ONCE_INIT, NULL, ""},
    [SEER_LIBRARY_WEBPDEMUX] = {{"libwebpdemux.so.2", "libwebpdemux.so", NULL}, seer_required_webpdemux, PTHREAD_ONCE_INIT, NULL, ""},
};

/* Loads the library and checks that every function Seer calls resolves; on any failure the handle
   stays NULL and `error` says why, so the stubs are never reached without their functions. */
static void seer_open(SeerLibrary *lib) {
    char why[200] = "";
    for (int i = 0; lib->sonames[i]; i++) {
        void *handle = dlopen(lib->sonames[i], RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char *reason = dlerror();
            if (!why[0] && reason) snprintf(why, sizeof why, "%s", reason);
            continue;
        }
        for (int k = 0; lib->required[k]; k++) {
            if (!dlsym(handle, lib->required[k])) {
                snprintf(lib->error, sizeof lib->error, "cannot use %s: it has no function %s (too old a version?)",
                         lib->sonames[i], lib->required[k]);
                dlclose(handle);
                return;
            }
        }
        lib->handle = handle;
        return;
    }
    snprintf(lib->error, sizeof lib->error, "cannot load %s: %s", lib->sonames[0], why[0] ? why : "not found");
}

static void open_tesseract(void) { seer_open(&libraries[SEER_LIBRARY_TESSERACT]); }
static void open_zbar(void) { seer_open(&libraries[SEER_LIBRARY_ZBAR]); }
static void open_heif(void) { seer_open(&libraries[SEER_LIBRARY_HEIF]); }
static void open_webp(void) { seer_open(&libraries[SEER_LIBRARY_WEBP]); }
static void open_webpdemux(void) { seer_open(&libraries[SEER_LIBRARY_WEBPDEMUX]); }

static SeerLibrary *seer_library(int library) {
    static void (*const openers[])(void) = {
        [SEER_LIBRARY_TESSERACT] = open_tesseract,
        [SEER_LIBRARY_ZBAR] = open_zbar,
        [SEER_LIBRARY_HEIF] = open_heif,
        [SEER_LIBRARY_WEBP] = open_webp,
        [SEER_LIBRARY_WEBPDEMUX] = open_webpdemux,
    };
    if (library < 0 || library >= (int)(sizeof openers / sizeof openers[0])) return NULL;
    pthread_once(&libraries[library].once, openers[library]);
    return &libraries[library];
}

int seer_loader_open(int library, char *message, size_t size) {
    SeerLibrary *lib = seer_library(library);
    if (lib && lib->handle) return 0;
    if (message && size) snprintf(message, size, "%s", lib ? lib->error : "unknown library");
    return -1;
}

void *seer_loader_symbol(int library, const char *name) {
    SeerLibrary *lib = seer_library(library);
    void *symbol = (lib && lib->handle) ? dlsym(lib->handle, name) : NULL;
    if (!symbol) {
        /* Unreachable from Seer's Swift code: every call path checks seer_loader_open first, and that
           resolves every function Seer calls. Only a C caller that skips the check can get here. */
        fprintf(stderr, "seer: %s: %s\n", name, lib && lib->error[0] ? lib->error : "symbol not found");
        abort();
    }
    return symbol;
}
