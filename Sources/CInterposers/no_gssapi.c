// libgit2 is linked from its static library, and its Kerberos support (HTTP "Negotiate") calls
// GSSAPI. libgit2 sets up Negotiate only for a "default" credential, the Kerberos ticket of
// the logged-in user, and todo's credential callback never offers one (a household signs in
// with a password or an ssh key), so these calls are never made. Linking the system's GSSAPI
// library would load it and six Kerberos libraries at every start, about 1 ms; these
// definitions satisfy the link instead, and each fails with GSS_S_FAILURE, which libgit2
// reports as Negotiate being unavailable.

#ifdef __linux__
#include <stdint.h>

typedef uint32_t gss_status;

#define GSS_FAILURE ((gss_status)13 << 16)

// The name type libgit2 passes to gss_import_name, which fails whatever it is given.
void *GSS_C_NT_HOSTBASED_SERVICE = 0;

static gss_status unavailable(gss_status *minor) {
    if (minor != 0) *minor = 0;
    return GSS_FAILURE;
}

gss_status gss_indicate_mechs(gss_status *minor, void **mechs) {
    if (mechs != 0) *mechs = 0;
    return unavailable(minor);
}

gss_status gss_import_name(gss_status *minor, void *text, void *type, void **name) {
    (void)text;
    (void)type;
    if (name != 0) *name = 0;
    return unavailable(minor);
}

gss_status gss_init_sec_context(gss_status *minor, void *credential, void **context, void *target, void *mech,
                                gss_status flags, gss_status time, void *bindings, void *input, void **actual_mech,
                                void *output, gss_status *returned_flags, gss_status *time_returned) {
    (void)credential, (void)context, (void)target, (void)mech, (void)flags, (void)time, (void)bindings;
    (void)input, (void)actual_mech, (void)output, (void)returned_flags, (void)time_returned;
    return unavailable(minor);
}

gss_status gss_display_status(gss_status *minor, gss_status status, int type, void *mech, gss_status *message_context,
                              void *text) {
    (void)status, (void)type, (void)mech, (void)message_context, (void)text;
    return unavailable(minor);
}

gss_status gss_delete_sec_context(gss_status *minor, void **context, void *output) {
    (void)context, (void)output;
    return unavailable(minor);
}

gss_status gss_release_buffer(gss_status *minor, void *buffer) {
    (void)buffer;
    return unavailable(minor);
}

gss_status gss_release_name(gss_status *minor, void **name) {
    (void)name;
    return unavailable(minor);
}

gss_status gss_release_oid_set(gss_status *minor, void **set) {
    (void)set;
    return unavailable(minor);
}
#endif
