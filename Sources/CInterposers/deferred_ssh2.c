// libgit2 calls libssh2_init inside git_libgit2_init, and libssh2 built on OpenSSL 3 then loads
// OpenSSL's configuration and providers: time spent by every command, although todo speaks
// ssh through OpenSSH's client (GitKit's ssh transport) and never makes a libssh2 session. The
// link wraps libssh2_init (`--wrap`, see Package.swift): while libgit2 starts, the call does
// nothing; any later one (libssh2_session_init_ex initialises the library itself, should a
// libssh2 session ever be made) goes through to libssh2. libssh2_exit does nothing when it
// was never initialised.

#include "interposers.h"

#ifdef __linux__
int __real_libssh2_init(int flags);

int __wrap_libssh2_init(int flags) {
    if (todo_is_library_starting()) return 0;
    return __real_libssh2_init(flags);
}
#endif
