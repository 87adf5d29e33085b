#ifndef CZBar_SHIM_H
#define CZBar_SHIM_H
#include <zbar.h>
#endif
