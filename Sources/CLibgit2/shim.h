#ifndef TODO_CLIBGIT2_SHIM_H
#define TODO_CLIBGIT2_SHIM_H
#include <git2.h>
#include <git2/sys/merge.h>
#include <git2/sys/mempack.h>
#include <git2/sys/repository.h>
#include <git2/sys/transport.h>
#include <sys/file.h>

/* git_libgit2_opts is variadic, which Swift cannot call: one wrapper per option used. */
static inline int todo_git_enable_fsync(int on) {
    return git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, on);
}

static inline int todo_git_strict_hash_verification(int on) {
    return git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, on);
}

static inline int todo_git_strict_object_creation(int on) {
    return git_libgit2_opts(GIT_OPT_ENABLE_STRICT_OBJECT_CREATION, on);
}

static inline int todo_git_set_certificate_file(const char *file) {
    return git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, file, (const char *)0);
}

static inline int todo_git_set_mwindow(size_t window, size_t mapped_limit) {
    int rc = git_libgit2_opts(GIT_OPT_SET_MWINDOW_SIZE, window);
    return rc != 0 ? rc : git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, mapped_limit);
}

static inline int todo_git_get_mwindow(size_t *window, size_t *mapped_limit) {
    int rc = git_libgit2_opts(GIT_OPT_GET_MWINDOW_SIZE, window);
    return rc != 0 ? rc : git_libgit2_opts(GIT_OPT_GET_MWINDOW_MAPPED_LIMIT, mapped_limit);
}

static inline int todo_git_set_tree_cache_limit(size_t bytes) {
    return git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_TREE, bytes);
}

/* A subtransport and its stream with room for the Swift object behind them: libgit2 hands the
   callbacks the C struct only, and the Swift side finds its object in `context`. */
typedef struct {
    git_smart_subtransport parent;
    void *context;
} todo_subtransport;

typedef struct {
    git_smart_subtransport_stream parent;
    void *context;
} todo_subtransport_stream;
#endif
