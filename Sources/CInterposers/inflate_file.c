// Reading a loose object back without libgit2: libgit2 1.5 loops forever inflating a loose
// object file that was cut short (as a machine that lost power can leave one), so the check
// of such files after a crash inflates them here, where a short stream is an error.

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "interposers.h"

unsigned char *todo_inflate_file(const char *path, size_t limit, size_t *size_out) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size <= 0 || (size_t)st.st_size > limit) {
        close(fd);
        return NULL;
    }
    size_t in_size = (size_t)st.st_size;
    unsigned char *in = malloc(in_size);
    size_t got = 0;
    while (in != NULL && got < in_size) {
        ssize_t n = read(fd, in + got, in_size - got);
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fd);
    if (in == NULL || got != in_size) {
        free(in);
        return NULL;
    }
    z_stream zs = {0};
    if (inflateInit(&zs) != Z_OK) {
        free(in);
        return NULL;
    }
    size_t cap = in_size * 4 + 64, used = 0;
    unsigned char *out = malloc(cap);
    zs.next_in = in;
    zs.avail_in = (uInt)in_size;
    int ret = Z_OK;
    while (out != NULL) {
        if (used == cap) {
            if (cap > limit) break;
            unsigned char *bigger = realloc(out, cap * 2);
            if (bigger == NULL) break;
            out = bigger;
            cap *= 2;
        }
        zs.next_out = out + used;
        zs.avail_out = (uInt)(cap - used);
        ret = inflate(&zs, Z_NO_FLUSH);
        used = cap - zs.avail_out;
        if (ret == Z_STREAM_END || ret != Z_OK) break;
    }
    inflateEnd(&zs);
    free(in);
    if (ret != Z_STREAM_END || zs.avail_in != 0) {
        free(out);
        return NULL;
    }
    *size_out = used;
    return out;
}
