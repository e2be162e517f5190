#!/bin/sh
# make dist (docs/INSTALL.md, "Building the package"; docs/TESTING.md, "Packages"): the commit
# checked out (HEAD; what is not committed is left out), built by build.sh, stripped, checked,
# and packaged by assemble.sh into DIST_OUT (default dist/).
#
#   DIST_BINARIES=folder   package the todo and todo-serve in folder instead of building
#   DIST_VERSION=x.y.z     the version, instead of version.sh's
#   DIST_STARTED_IN=path   the folder make was started in (must appear in neither program)
set -eu
top=$(git rev-parse --show-toplevel)
cd "$top"
out=${DIST_OUT:-dist}
case "$out" in /*) ;; *) out=$top/$out ;; esac
started=${DIST_STARTED_IN:-$top}
commit=$(git rev-parse HEAD)
version=$(sh scripts/dist/version.sh HEAD)
echo "$version" | grep -qE '^[0-9][A-Za-z0-9.+~]*$' || { echo "dist.sh: $version is not a Debian version (digits, letters, . + ~)" >&2; exit 64; }
export SOURCE_DATE_EPOCH
SOURCE_DATE_EPOCH=$(git show -s --format=%ct "$commit")
export DIST_COMMIT="$commit"
export DIST_MAINTAINER="${DIST_MAINTAINER:-$(git show -s --format='%cn <%ce>' "$commit")}"
[ -z "$(git status --porcelain --untracked-files=no)" ] || \
    echo "dist.sh: changes not committed are left out: the package is commit ${commit%"${commit#???????}"}" >&2

work=$(mktemp -d "${TMPDIR:-/tmp}/todo-dist.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
mkdir "$work/sources" "$work/bin"
git archive --format=tar "$commit" | tar -x -C "$work/sources"
# The version, fixed in the build's own copy (Sources/TodoCore/Version.swift).
versionfile=$work/sources/Sources/TodoCore/Version.swift
sed -i -E "s/(static var text: String \\{ )\"[^\"]*\"( \\})/\\1\"$version\"\\2/" "$versionfile"
grep -qF "{ \"$version\" }" "$versionfile" || { echo "dist.sh: could not write the version into $versionfile" >&2; exit 70; }

if [ -n "${DIST_BINARIES:-}" ]; then
    for b in todo todo-serve; do
        [ -x "$DIST_BINARIES/$b" ] || { echo "dist.sh: DIST_BINARIES has no executable $b ($DIST_BINARIES/$b)" >&2; exit 66; }
        cp "$DIST_BINARIES/$b" "$work/bin/$b"
    done
    echo "dist.sh: packaging $DIST_BINARIES/todo and todo-serve as $version (not built here)" >&2
else
    if [ -z "${DIST_RESOLVED:-}" ] && [ -f Package.resolved ]; then export DIST_RESOLVED="$top/Package.resolved"; fi
    sh scripts/dist/build.sh "$work/sources" "$work/bin"
fi
for b in todo todo-serve; do
    # As make install: the debug information is most of each file; the dynamic symbols the
    # interposers need stay. .comment (compiler versions) is dropped too.
    strip --remove-section=.comment "$work/bin/$b"
    # The compiler's module hashes zeroed and the build id derived from the content: what made
    # two builds of one commit differ (settle-ids.sh).
    sh scripts/dist/settle-ids.sh "$work/bin/$b"
    if grep -a -q -e TODO_MAINTENANCE_STOP_AT -e TODO_ID_SEED "$work/bin/$b"; then
        echo "dist.sh: $b holds a test hook: not a release build (docs/TESTING.md)" >&2; exit 1
    fi
    n=$(grep -a -c -F "$started" "$work/bin/$b" || true)
    if [ "$n" != 0 ]; then
        echo "dist.sh: $b holds the path $started ($n times): it would differ from a build in another folder" >&2; exit 1
    fi
done
if [ -z "${DIST_BINARIES:-}" ]; then
    for b in todo todo-serve; do
        got=$("$work/bin/$b" --version)
        [ "$got" = "$version" ] || { echo "dist.sh: the $b built says $got, not $version" >&2; exit 1; }
    done
fi
cd "$work/sources"
sh scripts/dist/assemble.sh "$work/bin/todo" "$work/bin/todo-serve" "$version" "$out"
