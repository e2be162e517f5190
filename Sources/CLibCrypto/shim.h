#ifndef TODO_CLIBCRYPTO_SHIM_H
#define TODO_CLIBCRYPTO_SHIM_H
/* OpenSSL's libcrypto (3.0), the primitives of age: X25519, HKDF-SHA256, HMAC-SHA256,
   ChaCha20-Poly1305 and the random source. Only Sources/Age imports it. */
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
#endif
