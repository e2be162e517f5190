#ifndef TODO_INTERPOSERS_H
#define TODO_INTERPOSERS_H

#include <stddef.h>

/// While on, a CA bundle that libgit2 asks mbedTLS to parse is only remembered, not parsed.
/// Turned on around git_libgit2_init only.
void todo_defer_certificates(int on);

/// The CA bundle whose parse was put off, or NULL when none was.
const char *todo_deferred_certificate_file(void);

/// syncfs(2) of the file system holding `fd`; -1 with errno ENOSYS where there is none.
int todo_syncfs(int fd);

/// The inflated content of the zlib file at `path` (malloc'd, `*size_out` bytes), or NULL when
/// it cannot be read, is larger than `limit`, or is not one whole zlib stream.
unsigned char *todo_inflate_file(const char *path, size_t limit, size_t *size_out);

/// SHA-1 of `length` bytes into `out` through libcrypto if loaded: 0, else -1 (nothing done).
int todo_fast_sha1(const void *data, size_t length, unsigned char out[20]);

/// A no-op standing in for libssh2_init (deferred_ssh2.c).
int libssh2_init(int flags);

#endif
