// libgit2 built with mbedTLS sets TLS up inside git_libgit2_init: a random generator seeded
// from mbedTLS's entropy sources, whose HAVEGE source alone takes a million instructions to
// start (a twentieth of a `todo add`), spent by every command although only a sync over https
// uses TLS. The link wraps that set-up and the three calls that need it (`--wrap`, see
// Package.swift): during git_libgit2_init the set-up is only noted; the first TLS stream, or
// GitLibrary.loadCertificates (before any https transfer), runs it, once, with the CA bundle's
// parse put off as at start (deferred_certificates.c).

#include <pthread.h>

#include "interposers.h"

#ifdef __linux__
typedef struct git_stream git_stream;

int __real_git_mbedtls_stream_global_init(void);
int __real_git_mbedtls_stream_new(git_stream **out, const char *host, const char *port);
int __real_git_mbedtls_stream_wrap(git_stream **out, git_stream *in, const char *host);
int __real_git_mbedtls__set_cert_location(const char *file, const char *path);

static int pending = 0;  // set while git_libgit2_init runs, before any other thread uses libgit2
static int outcome = 0;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void set_up(void) {
    int was = todo_is_library_starting();
    todo_library_starting(1);
    outcome = __real_git_mbedtls_stream_global_init();
    todo_library_starting(was);
}

int todo_tls_set_up(void) {
    if (!pending) return 0;
    pthread_once(&once, set_up);
    return outcome;
}

int __wrap_git_mbedtls_stream_global_init(void) {
    if (todo_is_library_starting()) {
        pending = 1;
        return 0;
    }
    return __real_git_mbedtls_stream_global_init();
}

int __wrap_git_mbedtls_stream_new(git_stream **out, const char *host, const char *port) {
    int rc = todo_tls_set_up();
    return rc < 0 ? rc : __real_git_mbedtls_stream_new(out, host, port);
}

int __wrap_git_mbedtls_stream_wrap(git_stream **out, git_stream *in, const char *host) {
    int rc = todo_tls_set_up();
    return rc < 0 ? rc : __real_git_mbedtls_stream_wrap(out, in, host);
}

int __wrap_git_mbedtls__set_cert_location(const char *file, const char *path) {
    int rc = todo_tls_set_up();
    return rc < 0 ? rc : __real_git_mbedtls__set_cert_location(file, path);
}
#else
int todo_tls_set_up(void) { return 0; }
#endif
