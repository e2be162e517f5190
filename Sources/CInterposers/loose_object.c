// Writing one loose object as git does (a zlib stream of "TYPE SIZE\0" and the content, in
// objects/XX/ under the rest of its id, read-only), without fsync: libgit2's loose backend
// fsyncs each object and its folder whenever fsync of the git directory is on, a process-wide
// switch that a server with several threads cannot turn off for one commit. The caller makes
// the objects durable before anything points at them (GitKit's Repository.moveBranch: syncfs).

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "interposers.h"

static int write_all(int fd, const unsigned char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int todo_write_loose_object(const char *objects, const char *hex, const char *type, const void *data, size_t size) {
    if (strlen(hex) != 40) return -EINVAL;
    char header[64];
    int header_size = snprintf(header, sizeof header, "%s %zu", type, size) + 1;
    if (header_size <= 1 || header_size > (int)sizeof header) return -EINVAL;

    size_t path_size = strlen(objects) + 64;
    char *folder = malloc(path_size), *final = malloc(path_size), *temporary = malloc(path_size);
    unsigned char *out = NULL;
    int result = 0, fd = -1;
    if (folder == NULL || final == NULL || temporary == NULL) {
        result = -ENOMEM;
        goto done;
    }
    snprintf(folder, path_size, "%s/%.2s", objects, hex);
    snprintf(final, path_size, "%s/%s", folder, hex + 2);
    snprintf(temporary, path_size, "%s/tmp_obj_XXXXXX", folder);
    // Already there (another commit wrote the same blob): nothing to do.
    if (access(final, F_OK) == 0) goto done;
    if (mkdir(folder, 0777) != 0 && errno != EEXIST) {
        result = -errno;
        goto done;
    }

    z_stream zs = {0};
    // Level 1, git's and libgit2's default for loose objects (core.looseCompression).
    if (deflateInit(&zs, 1) != Z_OK) {
        result = -ENOMEM;
        goto done;
    }
    size_t bound = deflateBound(&zs, (uLong)(size + (size_t)header_size)) + 64;
    out = malloc(bound);
    if (out == NULL) {
        deflateEnd(&zs);
        result = -ENOMEM;
        goto done;
    }
    zs.next_out = out;
    zs.avail_out = (uInt)bound;
    zs.next_in = (unsigned char *)header;
    zs.avail_in = (uInt)header_size;
    int ret = deflate(&zs, Z_NO_FLUSH);
    if (ret == Z_OK) {
        zs.next_in = (unsigned char *)data;
        zs.avail_in = (uInt)size;
        ret = deflate(&zs, Z_FINISH);
    }
    size_t written = bound - zs.avail_out;
    deflateEnd(&zs);
    if (ret != Z_STREAM_END) {
        result = -EIO;
        goto done;
    }

    fd = mkstemp(temporary);
    if (fd < 0) {
        result = -errno;
        goto done;
    }
    if (write_all(fd, out, written) != 0 || fchmod(fd, 0444) != 0) {
        result = -errno;
        goto done;
    }
    if (close(fd) != 0) {
        fd = -1;
        result = -errno;
        goto done;
    }
    fd = -1;
    // As git: a hard link never replaces an object another writer put there first.
    if (link(temporary, final) != 0 && errno != EEXIST) {
        if (rename(temporary, final) != 0) result = -errno;
    }

done:
    if (fd >= 0) close(fd);
    if (temporary != NULL && strstr(temporary, "XXXXXX") == NULL) unlink(temporary);
    free(out);
    free(folder);
    free(final);
    free(temporary);
    return result;
}
