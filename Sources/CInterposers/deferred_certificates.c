// libgit2 built with mbedTLS (as Debian ships it) parses the whole system CA bundle inside
// git_libgit2_init: about 4 ms, a quarter of a `todo add`, spent by every command although
// only a sync over https ever needs it. The executable exports this definition of
// mbedtls_x509_crt_parse_file, so libgit2's call binds here first (see Package.swift). During
// git_libgit2_init it only remembers the file, leaving the trusted chain empty; GitKit hands
// the file back through GIT_OPT_SET_SSL_CERT_LOCATIONS before any https connection, and that
// parse goes through to mbedTLS. Forgetting to do so fails safe: with an empty chain no
// certificate is trusted. Where libgit2 uses another TLS library this is never called.

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "interposers.h"

static int deferring = 0;
static char *deferred_file = NULL;

void todo_defer_certificates(int on) { deferring = on; }

const char *todo_deferred_certificate_file(void) { return deferred_file; }

typedef int (*parse_file_fn)(void *chain, const char *path);

int mbedtls_x509_crt_parse_file(void *chain, const char *path) {
    if (deferring && path != NULL) {
        free(deferred_file);
        deferred_file = strdup(path);
        return 0;
    }
    static parse_file_fn real = NULL;
    if (real == NULL) real = (parse_file_fn)dlsym(RTLD_NEXT, "mbedtls_x509_crt_parse_file");
    if (real == NULL) return -1;
    return real(chain, path);
}
