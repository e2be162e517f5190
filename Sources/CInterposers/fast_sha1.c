// SHA-1 through OpenSSL's libcrypto (linked into the executable for libssh2): it
// uses the CPU's SHA instructions where there are some, several times faster than libgit2's
// collision-detecting SHA-1. GitKit's only SHA-1 of its own (GitKit/SHA1.swift wraps it): the
// index checksum, the trailer of the packs GitKit writes and the id of a loose object read back,
// which guard against a torn or damaged file, not against an attacker. libgit2 keeps its own for
// the objects it reads and writes.
//
// The low-level SHA1_Init/Update/Final calls, not the one-shot SHA1(): in OpenSSL 3 SHA1() goes
// through EVP_Q_digest, whose first use in a process loads the configuration and providers
// (1 to 5 ms, more than hashing a 1 MB index), while the low-level calls hash directly.
// Declared here, as OpenSSL 3 declares them deprecated.

#include <string.h>

#include "interposers.h"

#ifdef __linux__
// The context is OpenSSL's SHA_CTX: five 32-bit words of state, the length in two words, 16
// words of block data and a count, 96 bytes; TODO_SHA1_CONTEXT_SIZE leaves room to spare.
int SHA1_Init(void *context);
int SHA1_Update(void *context, const void *data, size_t length);
int SHA1_Final(unsigned char *out, void *context);

int todo_sha1_init(void *context) {
    memset(context, 0, TODO_SHA1_CONTEXT_SIZE);
    return SHA1_Init(context) == 1 ? 0 : -1;
}

int todo_sha1_update(void *context, const void *data, size_t length) {
    return SHA1_Update(context, data, length) == 1 ? 0 : -1;
}

int todo_sha1_final(void *context, unsigned char out[20]) { return SHA1_Final(out, context) == 1 ? 0 : -1; }
#else
int todo_sha1_init(void *context) {
    (void)context;
    return -1;
}

int todo_sha1_update(void *context, const void *data, size_t length) {
    (void)context;
    (void)data;
    (void)length;
    return -1;
}

int todo_sha1_final(void *context, unsigned char out[20]) {
    (void)context;
    (void)out;
    return -1;
}
#endif

