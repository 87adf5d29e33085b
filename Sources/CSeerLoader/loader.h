#ifndef SEER_LOADER_INTERNAL_H
#define SEER_LOADER_INTERNAL_H
#include "CSeerLoader.h"

/* Stubs are hidden: a loaded library can never bind its own calls to them. */
#define SEER_STUB __attribute__((visibility("hidden")))

/* The address of `name` in `library`, loading the library on first use. */
void *seer_loader_symbol(int library, const char *name);

#endif
