#include "loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *sonames[3];
    pthread_once_t once;
    void *handle;
    char error[256];
} SeerLibrary;

static SeerLibrary libraries[] = {
    [SEER_LIBRARY_TESSERACT] = {{"libtesseract.so.5", "libtesseract.so", NULL}, PTHREAD_ONCE_INIT, NULL, ""},
    [SEER_LIBRARY_ZBAR] = {{"libzbar.so.0", "libzbar.so", NULL}, PTHREAD_ONCE_INIT, NULL, ""},
};

static void seer_open(SeerLibrary *lib) {
    for (int i = 0; lib->sonames[i]; i++) {
        lib->handle = dlopen(lib->sonames[i], RTLD_NOW | RTLD_LOCAL);
        if (lib->handle) return;
    }
    const char *why = dlerror();
    snprintf(lib->error, sizeof lib->error, "cannot load %s: %s", lib->sonames[0], why ? why : "not found");
}

static void open_tesseract(void) { seer_open(&libraries[SEER_LIBRARY_TESSERACT]); }
static void open_zbar(void) { seer_open(&libraries[SEER_LIBRARY_ZBAR]); }

static SeerLibrary *seer_library(int library) {
    if (library == SEER_LIBRARY_TESSERACT) {
        pthread_once(&libraries[library].once, open_tesseract);
    } else if (library == SEER_LIBRARY_ZBAR) {
        pthread_once(&libraries[library].once, open_zbar);
    } else {
        return NULL;
    }
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
        /* Reached only when a caller skipped seer_loader_open's check, or the library is too old. */
        fprintf(stderr, "seer: %s: %s\n", name, lib && lib->error[0] ? lib->error : "symbol not found");
        abort();
    }
    return symbol;
}
