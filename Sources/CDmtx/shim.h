#ifndef CDmtx_SHIM_H
#define CDmtx_SHIM_H
#include <dmtx.h>
#endif
