// syncfs, which Swift's Glibc module does not declare: one call that makes every write to a
// file system durable (data, inodes, directory entries, and the journal committed), used by
// GitKit to make a commit's objects, and then its ref, durable with one call each instead of
// an fsync per file and per directory.

#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>

#include "interposers.h"

int todo_syncfs(int fd) {
#ifdef __linux__
    return syncfs(fd);
#else
    (void)fd;
    errno = ENOSYS;
    return -1;
#endif
}
