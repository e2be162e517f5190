#ifndef TODO_INTERPOSERS_H
#define TODO_INTERPOSERS_H

/// While on, a CA bundle that libgit2 asks mbedTLS to parse is only remembered, not parsed.
/// Turned on around git_libgit2_init only.
void todo_defer_certificates(int on);

/// The CA bundle whose parse was put off, or NULL when none was.
const char *todo_deferred_certificate_file(void);

#endif
