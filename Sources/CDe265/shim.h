#ifndef CDe265_SHIM_H
#define CDe265_SHIM_H
#include <libde265/de265.h>
#endif
