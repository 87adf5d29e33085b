#ifndef CTesseract_SHIM_H
#define CTesseract_SHIM_H
#include <tesseract/capi.h>

/* libgomp, which Debian's libtesseract runs its LSTM on. Declared here rather than through <omp.h>,
 * which belongs to the compiler that built Tesseract, not to the one building Seer.
 * The corresponding C function is `omp_set_max_active_levels`. */
void omp_set_max_active_levels(int max_levels);
#endif
