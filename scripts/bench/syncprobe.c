// A preload library that counts, and can slow down, the calls that make writes durable:
// fsync, fdatasync, syncfs, sync_file_range, msync and sync. Built with
//   cc -shared -fPIC -O2 -o syncprobe.so syncprobe.c -ldl
// and used as LD_PRELOAD=syncprobe.so by the sync-count test and by `make bench`'s slow-disk
// rows, for todo, git and Taskwarrior alike.
//
//   SYNCPROBE_OUT       a file to which each process appends one line when it exits:
//                       "<pid> fsync=N fdatasync=N syncfs=N sync_file_range=N msync=N sync=N"
//   SYNCPROBE_DELAY_US  microseconds to sleep before each such call (a slow disk's flush)

#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

enum { FSYNC, FDATASYNC, SYNCFS, SYNC_FILE_RANGE, MSYNC, SYNC, KINDS };
static const char *names[KINDS] = {"fsync", "fdatasync", "syncfs", "sync_file_range", "msync", "sync"};
static unsigned long counts[KINDS];

static void *real(const char *name) { return dlsym(RTLD_NEXT, name); }

static void note(int kind) {
    __atomic_fetch_add(&counts[kind], 1, __ATOMIC_RELAXED);
    const char *delay = getenv("SYNCPROBE_DELAY_US");
    if (delay != NULL) {
        long us = strtol(delay, NULL, 10);
        if (us > 0) {
            struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
            while (nanosleep(&ts, &ts) != 0) {
            }
        }
    }
}

int fsync(int fd) {
    note(FSYNC);
    return ((int (*)(int))real("fsync"))(fd);
}

int fdatasync(int fd) {
    note(FDATASYNC);
    return ((int (*)(int))real("fdatasync"))(fd);
}

int syncfs(int fd) {
    note(SYNCFS);
    return ((int (*)(int))real("syncfs"))(fd);
}

int sync_file_range(int fd, off64_t offset, off64_t nbytes, unsigned int flags) {
    note(SYNC_FILE_RANGE);
    return ((int (*)(int, off64_t, off64_t, unsigned int))real("sync_file_range"))(fd, offset, nbytes, flags);
}

int msync(void *addr, size_t length, int flags) {
    note(MSYNC);
    return ((int (*)(void *, size_t, int))real("msync"))(addr, length, flags);
}

void sync(void) {
    note(SYNC);
    ((void (*)(void))real("sync"))();
}

__attribute__((destructor)) static void report(void) {
    const char *out = getenv("SYNCPROBE_OUT");
    if (out == NULL || *out == '\0') return;
    char line[256];
    int n = snprintf(line, sizeof line, "%ld", (long)getpid());
    for (int i = 0; i < KINDS; i++) {
        n += snprintf(line + n, sizeof line - n, " %s=%lu", names[i], counts[i]);
    }
    n += snprintf(line + n, sizeof line - n, "\n");
    int fd = open(out, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    (void)!write(fd, line, (size_t)n);
    close(fd);
}
