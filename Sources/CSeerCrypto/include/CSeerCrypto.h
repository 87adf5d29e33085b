#ifndef CSEERCRYPTO_H
#define CSEERCRYPTO_H

#include <stddef.h>
#include <stdint.h>
#include <openssl/evp.h>

/* Keys as libcrypto's EVP_PKEY: each function that returns one gives the caller a key to free with
   EVP_PKEY_free, or NULL when the input is not a valid key (libcrypto's error queue is then cleared).
   The others return 1 on success and 0 otherwise; a NULL message pointer with length 0 is the empty
   message. No function here does arithmetic of its own: libcrypto does all of it. */

/* ---------- Ed25519 (RFC 8032) ---------- */

/* A private key from its 32-byte seed. */
EVP_PKEY *seer_ed25519_private(const uint8_t *seed);
/* A new random private key. */
EVP_PKEY *seer_ed25519_generate(void);
/* A public key from its 32 bytes. */
EVP_PKEY *seer_ed25519_public(const uint8_t *bytes);
/* The 32-byte seed of a private key. */
int seer_ed25519_seed(const EVP_PKEY *key, uint8_t *out);
/* The 32-byte public key of a private or public key. */
int seer_ed25519_public_bytes(const EVP_PKEY *key, uint8_t *out);
/* The 64-byte signature of `message`. */
int seer_ed25519_sign(EVP_PKEY *key, const uint8_t *message, size_t length, uint8_t *out);
/* 1 when `signature` (any length; only 64 can be valid) signs `message` under `key`, else 0. */
int seer_ed25519_verify(EVP_PKEY *key, const uint8_t *signature, size_t signatureLength,
                        const uint8_t *message, size_t length);

/* ---------- ECDSA on P-256 with SHA-256 (ES256) ---------- */

/* A private key from its 32-byte big-endian scalar, which must lie in [1, n-1]. */
EVP_PKEY *seer_p256_private(const uint8_t *scalar);
/* A new random private key. */
EVP_PKEY *seer_p256_generate(void);
/* A public key from its X9.63 form (65 bytes, 04 || x || y); NULL unless the point is on the curve. */
EVP_PKEY *seer_p256_public(const uint8_t *x963, size_t length);
/* The 32-byte scalar of a private key. */
int seer_p256_scalar(const EVP_PKEY *key, uint8_t *out);
/* The 65-byte X9.63 public point of a private or public key. */
int seer_p256_public_bytes(const EVP_PKEY *key, uint8_t *out);
/* The signature of SHA-256(`message`) as raw r || s (64 bytes, each big-endian and zero-padded). */
int seer_p256_sign(EVP_PKEY *key, const uint8_t *message, size_t length, uint8_t *out);
/* 1 when the raw r || s `signature` (any length; only 64 can be valid) signs SHA-256(`message`), else 0. */
int seer_p256_verify(EVP_PKEY *key, const uint8_t *signature, size_t signatureLength,
                     const uint8_t *message, size_t length);

#endif
