// libgit2 1.5 leaves Nagle's algorithm on for the TCP sockets of its ssh, smart-HTTP and git://
// transports. Their exchanges write small messages and wait for the answer, and with Nagle on
// each such turn can stall until the peer's delayed acknowledgement (40 ms on Linux). libgit2
// is linked into the executable (see Package.swift), and its calls of connect bind to this
// definition: a TCP socket gets TCP_NODELAY, then the C library's connect connects it.
// Measured with `make bench` (ssh on loopback, 50 changed tasks each): a push 433 -> 263 ms.
//
// It also notes which transfer each socket belongs to: a thread that runs a transfer names it
// (todo_transfer_begin), and a watchdog shuts down that transfer's sockets only
// (todo_transfer_shutdown), never the other sockets of a process that serves other requests.

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "interposers.h"

#define TRACKED_MAX 64

static __thread long current_transfer = 0;
static pthread_mutex_t tracked_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    long transfer;
    int fd;
    struct sockaddr_storage peer;
    socklen_t peer_length;
} tracked[TRACKED_MAX];

void todo_transfer_begin(long transfer) { current_transfer = transfer; }

void todo_transfer_end(long transfer) {
    if (current_transfer == transfer) current_transfer = 0;
    pthread_mutex_lock(&tracked_lock);
    for (int i = 0; i < TRACKED_MAX; i++) {
        if (tracked[i].transfer == transfer) tracked[i].transfer = 0;
    }
    pthread_mutex_unlock(&tracked_lock);
}

static void track(int fd, const struct sockaddr *address, socklen_t length) {
    if (current_transfer == 0 || length > sizeof tracked[0].peer) return;
    pthread_mutex_lock(&tracked_lock);
    int slot = -1;
    for (int i = 0; i < TRACKED_MAX; i++) {
        // A slot of this transfer for the same descriptor (closed and reused) is replaced.
        if (tracked[i].transfer == current_transfer && tracked[i].fd == fd) { slot = i; break; }
        if (slot < 0 && tracked[i].transfer == 0) slot = i;
    }
    if (slot >= 0) {
        tracked[slot].transfer = current_transfer;
        tracked[slot].fd = fd;
        memcpy(&tracked[slot].peer, address, length);
        tracked[slot].peer_length = length;
    }
    pthread_mutex_unlock(&tracked_lock);
}

int todo_transfer_shutdown(long transfer) {
    int count = 0;
    pthread_mutex_lock(&tracked_lock);
    for (int i = 0; i < TRACKED_MAX; i++) {
        if (tracked[i].transfer != transfer || transfer == 0) continue;
        int fd = tracked[i].fd;
        struct stat st;
        if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
        // Still the socket this transfer connected: the same peer, or not connected yet (a
        // connect still in progress to a silent host).
        struct sockaddr_storage peer;
        socklen_t length = sizeof peer;
        if (getpeername(fd, (struct sockaddr *)&peer, &length) == 0) {
            if (length != tracked[i].peer_length || memcmp(&peer, &tracked[i].peer, length) != 0) continue;
        } else if (errno != ENOTCONN) {
            continue;
        }
        if (shutdown(fd, SHUT_RDWR) == 0) count++;
    }
    pthread_mutex_unlock(&tracked_lock);
    return count;
}

typedef int (*connect_fn)(int, const struct sockaddr *, socklen_t);

int connect(int fd, const struct sockaddr *address, socklen_t length) {
    static connect_fn real = NULL;
    if (real == NULL) real = (connect_fn)dlsym(RTLD_NEXT, "connect");
    if (real == NULL) {
        errno = ENOSYS;
        return -1;
    }
    if (address != NULL && (address->sa_family == AF_INET || address->sa_family == AF_INET6)) {
        int on = 1;
        // Not every AF_INET socket is TCP (UDP for DNS): a refusal changes nothing.
        (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
        track(fd, address, length);
    }
    return real(fd, address, length);
}
