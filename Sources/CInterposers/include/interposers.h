#ifndef TODO_INTERPOSERS_H
#define TODO_INTERPOSERS_H

#include <stddef.h>

/// On while libgit2 starts (around git_libgit2_init only): a CA bundle that libgit2 asks
/// mbedTLS to parse is then only remembered, and libssh2_init does nothing.
void todo_library_starting(int on);

/// Whether `todo_library_starting(1)` is in force.
int todo_is_library_starting(void);

/// The CA bundle whose parse was put off, or NULL when none was.
const char *todo_deferred_certificate_file(void);

/// Sets TLS up if git_libgit2_init put it off (deferred_tls.c), once: 0, or libgit2's error code.
int todo_tls_set_up(void);

/// syncfs(2) of the file system holding `fd`; -1 with errno ENOSYS where there is none.
int todo_syncfs(int fd);

/// The inflated content of the zlib file at `path` (malloc'd, `*size_out` bytes), or NULL when
/// it cannot be read, is larger than `limit`, or is not one whole zlib stream.
unsigned char *todo_inflate_file(const char *path, size_t limit, size_t *size_out);

/// A zlib inflater for `todo_inflate_entry`, reused from entry to entry; NULL without memory.
void *todo_inflater_new(void);
void todo_inflater_free(void *inflater);

/// Inflates the zlib stream at `in` (at most `in_length` bytes; it may go on past the stream)
/// into `out`. With `whole`: 0 when the stream ends after exactly `out_length` bytes. Without:
/// 0 once `out_length` bytes are out or the stream ends before (`*produced` says how many).
/// -1 for a damaged, short or (with `whole`) longer stream.
int todo_inflate_entry(void *inflater, const unsigned char *in, size_t in_length, unsigned char *out, size_t out_length, int whole,
                       size_t *produced);

/// Writes one loose object (`type` "blob", "tree", "commit" or "tag", its 40-digit id `hex`) into
/// the folder `objects` as git does, without fsync; an object already there is left as it is.
/// 0, or a negative errno.
int todo_write_loose_object(const char *objects, const char *hex, const char *type, const void *data, size_t size);

/// Bytes a `todo_sha1_*` context needs.
#define TODO_SHA1_CONTEXT_SIZE 256

/// SHA-1 of several pieces through libcrypto (GitKit's `SHA1`), in a context of TODO_SHA1_CONTEXT_SIZE bytes
/// aligned to 16: init, update per piece, final. Each returns 0, or -1 where the executable has no libcrypto.
int todo_sha1_init(void *context);
int todo_sha1_update(void *context, const void *data, size_t length);
int todo_sha1_final(void *context, unsigned char out[20]);

/// Names the transfer this thread runs from now on (non-zero): the sockets it connects are
/// noted as that transfer's.
void todo_transfer_begin(long transfer);

/// Ends the transfer: this thread names none, and its sockets are forgotten.
void todo_transfer_end(long transfer);

/// Shuts down (both ways) the sockets the transfer connected that are still open and still
/// connected to the same peer (or not connected yet); returns how many. Safe from any thread.
int todo_transfer_shutdown(long transfer);

#endif
