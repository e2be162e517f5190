// SHA-1 of a buffer through OpenSSL's libcrypto when the process has it loaded (libssh2 links
// it, so every todo has): it uses the CPU's SHA instructions where there are some, several
// times faster than libgit2's collision-detecting SHA-1. Looked up at run time, so there is
// no link-time dependency; GitKit falls back to its own SHA-1 when it is missing.
//
// The low-level SHA1_Init/Update/Final calls, not the one-shot SHA1(): in OpenSSL 3 SHA1() goes
// through EVP_Q_digest, whose first use in a process loads the configuration and providers
// (1 to 5 ms, more than hashing a 1 MB index), while the low-level calls hash directly.

#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

#include "interposers.h"

// OpenSSL's SHA_CTX: five 32-bit words of state, the length in two words, 16 words of
// block data and a count; 96 bytes. Room is left to spare.
typedef struct {
    unsigned char opaque[256];
} sha_ctx_room;

typedef int (*sha1_init_fn)(void *);
typedef int (*sha1_update_fn)(void *, const void *, size_t);
typedef int (*sha1_final_fn)(unsigned char *, void *);

int todo_fast_sha1(const void *data, size_t length, unsigned char out[20]) {
    static sha1_init_fn init = NULL;
    static sha1_update_fn update = NULL;
    static sha1_final_fn final = NULL;
    static int looked = 0;
    if (!looked) {
        init = (sha1_init_fn)dlsym(RTLD_DEFAULT, "SHA1_Init");
        update = (sha1_update_fn)dlsym(RTLD_DEFAULT, "SHA1_Update");
        final = (sha1_final_fn)dlsym(RTLD_DEFAULT, "SHA1_Final");
        looked = 1;
    }
    if (init == NULL || update == NULL || final == NULL) return -1;
    sha_ctx_room ctx;
    memset(&ctx, 0, sizeof ctx);
    if (init(&ctx) != 1 || update(&ctx, data, length) != 1 || final(out, &ctx) != 1) return -1;
    return 0;
}
