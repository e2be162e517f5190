// libgit2 built with mbedTLS (as Debian ships it) parses the whole system CA bundle inside
// git_libgit2_init: about 4 ms, a quarter of a `todo add`, spent by every command although
// only a sync over https ever needs it. libgit2 and mbedTLS are linked into the executable
// from their static libraries, and the link wraps mbedtls_x509_crt_parse_file (`--wrap`, see
// Package.swift), so libgit2's call comes here first. During git_libgit2_init it only
// remembers the file, leaving the trusted chain empty; GitKit hands the file back through
// GIT_OPT_SET_SSL_CERT_LOCATIONS before any https connection, and that parse goes through to
// mbedTLS. Forgetting to do so fails safe: with an empty chain no certificate is trusted.

#include <stdlib.h>
#include <string.h>

#include "interposers.h"

static int starting = 0;
static char *deferred_file = NULL;

void todo_library_starting(int on) { starting = on; }

int todo_is_library_starting(void) { return starting; }

const char *todo_deferred_certificate_file(void) { return deferred_file; }

#ifdef __linux__
int __real_mbedtls_x509_crt_parse_file(void *chain, const char *path);

int __wrap_mbedtls_x509_crt_parse_file(void *chain, const char *path) {
    if (starting && path != NULL) {
        free(deferred_file);
        deferred_file = strdup(path);
        return 0;
    }
    return __real_mbedtls_x509_crt_parse_file(chain, path);
}
#endif
