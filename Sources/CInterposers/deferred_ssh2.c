// libgit2 calls libssh2_init inside git_libgit2_init, and libssh2 built on OpenSSL 3 then loads
// OpenSSL's configuration and providers: time spent by every command, although todo speaks
// ssh through OpenSSH's client (GitKit's ssh transport) and never makes a libssh2 session. The
// executable exports this definition (see Package.swift), so libgit2's call binds here and
// does nothing. Should a libssh2 session ever be made, libssh2 initialises itself first
// (libssh2_session_init_ex does), and its libssh2_exit does nothing when it was never
// initialised. Where libgit2 has no libssh2 this is never called.

#include "interposers.h"

int libssh2_init(int flags) {
    (void)flags;
    return 0;
}
