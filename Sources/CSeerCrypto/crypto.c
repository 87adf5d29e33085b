#include "CSeerCrypto.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/obj_mac.h>
#include <openssl/param_build.h>

/* What a NULL message pointer of length 0 stands for: libcrypto wants a pointer. */
static const uint8_t empty_message[1] = {0};

static const uint8_t *message_or_empty(const uint8_t *message) {
    return message ? message : empty_message;
}

/* Returns `key`; when it is NULL, libcrypto's reasons are dropped so that they do not linger in the
   thread's error queue for the next caller to misread. */
static EVP_PKEY *key_or_clear(EVP_PKEY *key) {
    if (!key) ERR_clear_error();
    return key;
}

static int ok_or_clear(int ok) {
    if (!ok) ERR_clear_error();
    return ok;
}

/* ---------- Ed25519 ---------- */

EVP_PKEY *seer_ed25519_private(const uint8_t *seed) {
    return key_or_clear(EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, 32));
}

EVP_PKEY *seer_ed25519_generate(void) {
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, NULL);
    if (!ctx || EVP_PKEY_keygen_init(ctx) != 1 || EVP_PKEY_keygen(ctx, &key) != 1) {
        EVP_PKEY_free(key);
        key = NULL;
    }
    EVP_PKEY_CTX_free(ctx);
    return key_or_clear(key);
}

EVP_PKEY *seer_ed25519_public(const uint8_t *bytes) {
    return key_or_clear(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, bytes, 32));
}

int seer_ed25519_seed(const EVP_PKEY *key, uint8_t *out) {
    size_t length = 32;
    return ok_or_clear(EVP_PKEY_get_raw_private_key(key, out, &length) == 1 && length == 32);
}

int seer_ed25519_public_bytes(const EVP_PKEY *key, uint8_t *out) {
    size_t length = 32;
    return ok_or_clear(EVP_PKEY_get_raw_public_key(key, out, &length) == 1 && length == 32);
}

int seer_ed25519_sign(EVP_PKEY *key, const uint8_t *message, size_t length, uint8_t *out) {
    size_t signatureLength = 64;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx && EVP_DigestSignInit(ctx, NULL, NULL, NULL, key) == 1
        && EVP_DigestSign(ctx, out, &signatureLength, message_or_empty(message), length) == 1
        && signatureLength == 64;
    EVP_MD_CTX_free(ctx);
    return ok_or_clear(ok);
}

int seer_ed25519_verify(EVP_PKEY *key, const uint8_t *signature, size_t signatureLength,
                        const uint8_t *message, size_t length) {
    if (!signature || signatureLength != 64) return 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx && EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, key) == 1
        && EVP_DigestVerify(ctx, signature, signatureLength, message_or_empty(message), length) == 1;
    EVP_MD_CTX_free(ctx);
    return ok_or_clear(ok);
}

/* ---------- ECDSA on P-256 ---------- */

/* An EC key on P-256 from a public point (X9.63) and, when `scalar` is given, its private scalar. */
static EVP_PKEY *p256_from_data(const uint8_t *x963, const BIGNUM *scalar) {
    EVP_PKEY *key = NULL;
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    if (!builder
        || OSSL_PARAM_BLD_push_utf8_string(builder, OSSL_PKEY_PARAM_GROUP_NAME, SN_X9_62_prime256v1, 0) != 1
        || OSSL_PARAM_BLD_push_octet_string(builder, OSSL_PKEY_PARAM_PUB_KEY, x963, 65) != 1
        || (scalar && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_PRIV_KEY, scalar) != 1))
        goto done;
    params = OSSL_PARAM_BLD_to_param(builder);
    ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (!params || !ctx || EVP_PKEY_fromdata_init(ctx) != 1
        || EVP_PKEY_fromdata(ctx, &key, scalar ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, params) != 1) {
        EVP_PKEY_free(key);
        key = NULL;
    }
done:
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(builder);
    return key;
}

EVP_PKEY *seer_p256_private(const uint8_t *scalar) {
    EVP_PKEY *key = NULL;
    EC_POINT *point = NULL;
    uint8_t x963[65];
    BN_CTX *bn = BN_CTX_new();
    EC_GROUP *group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    BIGNUM *d = BN_secure_new();
    if (!bn || !group || !d || !BN_bin2bn(scalar, 32, d)) goto done;
    BN_set_flags(d, BN_FLG_CONSTTIME);
    /* The scalar must be a valid private key: 1 <= d < n. */
    if (BN_is_zero(d) || BN_cmp(d, EC_GROUP_get0_order(group)) >= 0) goto done;
    /* The public point d·G, which the key carries beside the scalar. */
    point = EC_POINT_new(group);
    if (!point || EC_POINT_mul(group, point, d, NULL, NULL, bn) != 1
        || EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, x963, sizeof x963, bn) != sizeof x963)
        goto done;
    key = p256_from_data(x963, d);
done:
    EC_POINT_free(point);
    BN_clear_free(d);
    EC_GROUP_free(group);
    BN_CTX_free(bn);
    return key_or_clear(key);
}

EVP_PKEY *seer_p256_generate(void) {
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (!ctx || EVP_PKEY_keygen_init(ctx) != 1 || EVP_PKEY_CTX_set_group_name(ctx, SN_X9_62_prime256v1) != 1
        || EVP_PKEY_keygen(ctx, &key) != 1) {
        EVP_PKEY_free(key);
        key = NULL;
    }
    EVP_PKEY_CTX_free(ctx);
    return key_or_clear(key);
}

EVP_PKEY *seer_p256_public(const uint8_t *x963, size_t length) {
    if (!x963 || length != 65 || x963[0] != 0x04) return NULL;
    EVP_PKEY *key = p256_from_data(x963, NULL);
    /* libcrypto's public-key check: coordinates in the field, on the curve, not the point at
       infinity. P-256's cofactor is 1, so such a point has order n and the full check (n·Q = O)
       would add nothing but a scalar multiplication. */
    EVP_PKEY_CTX *ctx = key ? EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL) : NULL;
    if (key && (!ctx || EVP_PKEY_public_check_quick(ctx) != 1)) {
        EVP_PKEY_free(key);
        key = NULL;
    }
    EVP_PKEY_CTX_free(ctx);
    return key_or_clear(key);
}

int seer_p256_scalar(const EVP_PKEY *key, uint8_t *out) {
    BIGNUM *d = NULL;
    int ok = EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_PRIV_KEY, &d) == 1 && BN_bn2binpad(d, out, 32) == 32;
    BN_clear_free(d);
    return ok_or_clear(ok);
}

int seer_p256_public_bytes(const EVP_PKEY *key, uint8_t *out) {
    size_t length = 0;
    int ok = EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, out, 65, &length) == 1
        && length == 65 && out[0] == 0x04;
    return ok_or_clear(ok);
}

int seer_p256_sign(EVP_PKEY *key, const uint8_t *message, size_t length, uint8_t *out) {
    uint8_t der[128];
    size_t derLength = sizeof der;
    const uint8_t *cursor = der;
    ECDSA_SIG *signature = NULL;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx && EVP_DigestSignInit(ctx, NULL, EVP_sha256(), NULL, key) == 1
        && EVP_DigestSign(ctx, der, &derLength, message_or_empty(message), length) == 1
        && (signature = d2i_ECDSA_SIG(NULL, &cursor, (long)derLength)) != NULL
        && BN_bn2binpad(ECDSA_SIG_get0_r(signature), out, 32) == 32
        && BN_bn2binpad(ECDSA_SIG_get0_s(signature), out + 32, 32) == 32;
    ECDSA_SIG_free(signature);
    EVP_MD_CTX_free(ctx);
    return ok_or_clear(ok);
}

int seer_p256_verify(EVP_PKEY *key, const uint8_t *signature, size_t signatureLength,
                     const uint8_t *message, size_t length) {
    if (!signature || signatureLength != 64) return 0;
    int ok = 0, derLength = 0;
    uint8_t *der = NULL;
    EVP_MD_CTX *ctx = NULL;
    BIGNUM *r = BN_bin2bn(signature, 32, NULL);
    BIGNUM *s = BN_bin2bn(signature + 32, 32, NULL);
    ECDSA_SIG *parsed = ECDSA_SIG_new();
    if (!r || !s || !parsed || ECDSA_SIG_set0(parsed, r, s) != 1) {
        BN_free(r);
        BN_free(s);
        goto done;
    }
    /* The signature now owns r and s. libcrypto rejects r or s outside [1, n-1]. */
    derLength = i2d_ECDSA_SIG(parsed, &der);
    ctx = EVP_MD_CTX_new();
    ok = derLength > 0 && ctx && EVP_DigestVerifyInit(ctx, NULL, EVP_sha256(), NULL, key) == 1
        && EVP_DigestVerify(ctx, der, (size_t)derLength, message_or_empty(message), length) == 1;
done:
    EVP_MD_CTX_free(ctx);
    OPENSSL_free(der);
    ECDSA_SIG_free(parsed);
    return ok_or_clear(ok);
}
