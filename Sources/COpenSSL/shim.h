#ifndef COpenSSL_SHIM_H
#define COpenSSL_SHIM_H
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#endif
