#ifndef CTesseract_SHIM_H
#define CTesseract_SHIM_H
#include <tesseract/capi.h>
#endif
