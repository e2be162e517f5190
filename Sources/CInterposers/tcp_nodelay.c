// libgit2 1.5 leaves Nagle's algorithm on for the TCP sockets of its ssh, smart-HTTP and git://
// transports. Their exchanges write small messages and wait for the answer, and with Nagle on
// each such turn can stall until the peer's delayed acknowledgement (40 ms on Linux). libgit2
// is linked into the executable (see Package.swift), and its calls of connect bind to this
// definition: a TCP socket gets TCP_NODELAY, then the C library's connect connects it.
// Measured with `make bench` (ssh on loopback, 50 changed tasks each): a push 433 -> 263 ms.

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

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
    }
    return real(fd, address, length);
}
