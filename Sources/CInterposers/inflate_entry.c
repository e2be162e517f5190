// Inflating the zlib streams of pack entries for GitKit's PackReader: one z_stream per reader,
// reset for each entry, so that no entry pays for zlib's allocations (libgit2 sets up and frees
// a stream, 40 KB, per object it reads).

#include <limits.h>
#include <stdlib.h>
#include <zlib.h>

#include "interposers.h"

void *todo_inflater_new(void) {
    z_stream *zs = calloc(1, sizeof(z_stream));
    if (zs == NULL) return NULL;
    if (inflateInit(zs) != Z_OK) {
        free(zs);
        return NULL;
    }
    return zs;
}

void todo_inflater_free(void *inflater) {
    if (inflater == NULL) return;
    inflateEnd(inflater);
    free(inflater);
}

int todo_inflate_entry(void *inflater, const unsigned char *in, size_t in_length, unsigned char *out, size_t out_length, int whole,
                       size_t *produced) {
    z_stream *zs = inflater;
    *produced = 0;
    if (zs == NULL || out_length >= UINT_MAX || inflateReset(zs) != Z_OK) return -1;
    // One byte more than expected, so that a stream longer than its entry says is caught.
    unsigned char spare = 0;
    zs->next_in = (Bytef *)in;
    zs->avail_in = in_length > UINT_MAX ? UINT_MAX : (uInt)in_length;
    zs->next_out = out;
    zs->avail_out = (uInt)out_length;
    int ret = Z_OK;
    for (;;) {
        if (zs->avail_out == 0) {
            if (!whole) break;
            if (zs->next_out == &spare + 1) break;  // the spare byte is used: too long
            zs->next_out = &spare;
            zs->avail_out = 1;
        }
        ret = inflate(zs, Z_NO_FLUSH);
        if (ret != Z_OK) break;
        if (zs->avail_in == 0) break;
    }
    size_t total = (size_t)zs->total_out;
    *produced = total > out_length ? out_length : total;
    if (!whole) return (ret == Z_OK || ret == Z_STREAM_END) ? 0 : -1;
    return (ret == Z_STREAM_END && total == out_length) ? 0 : -1;
}
