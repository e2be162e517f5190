#!/bin/sh
# Builds `todo` as it was at an older commit of this repository, for the compatibility test
# (Tests/TodoEndToEndTests/OlderVersionTests.swift), and prints the binary's path:
#
#   scripts/build-at.sh COMMIT DIR     e.g. scripts/build-at.sh fb9737e .build-compat/fb9737e
#
# The commit's tree is taken from this repository's own history with `git archive` into DIR/src
# and built (debug, the `todo` product only) with its own scratch directory DIR/build, so it
# never touches .build. The binary is DIR/todo, and DIR/commit names the commit it was built
# from. When both are there and name COMMIT, nothing is built again, whichever clone asks:
# the source is the commit's, so a build made for one clone serves them all.
#
# Needs the commit in the local history (a full clone, as CI has; a shallow one is refused with
# what to do). When the working copy has a Package.resolved, the old build resolves its
# dependencies to the same versions, from SwiftPM's cache.
set -eu

if [ $# -ne 2 ]; then
    echo "usage: scripts/build-at.sh COMMIT DIR" >&2
    exit 64
fi
top=$(cd "$(dirname "$0")/.." && pwd)
commit=$(git -C "$top" rev-parse --verify --quiet "$1^{commit}") || {
    echo "build-at: commit '$1' is not in this repository's history." >&2
    echo "A shallow clone lacks it: run 'git fetch --unshallow' and try again." >&2
    exit 1
}
mkdir -p "$2"
dir=$(cd "$2" && pwd)
bin="$dir/todo"

# DIR may be shared by several clones (make test keeps it in ~/.cache): one build at a time.
if [ -z "${BUILD_AT_LOCKED:-}" ] && command -v flock >/dev/null 2>&1; then
    BUILD_AT_LOCKED=1
    export BUILD_AT_LOCKED
    exec flock "$dir.lock" sh "$0" "$@"
fi

if [ -x "$bin" ] && [ "$(cat "$dir/commit" 2>/dev/null)" = "$commit" ]; then
    echo "$bin"
    exit 0
fi

# A fresh copy of the source each time: nothing left over from another commit or a build that
# was interrupted. The scratch directory is kept, so a second build only compiles what changed.
rm -rf "$dir/src" "$bin" "$dir/commit"
mkdir -p "$dir/src"
git -C "$top" archive --format=tar "$commit" | tar -x -C "$dir/src"
if [ -f "$top/Package.resolved" ]; then
    cp "$top/Package.resolved" "$dir/src/Package.resolved"
fi
# BUILD_AT_CONFIG=release builds it as `make release` does (the baseline of `make bench`).
config=${BUILD_AT_CONFIG:-debug}
if [ "$config" = release ]; then
    ${SWIFT:-swift} build -c release -Xswiftc -static-stdlib --package-path "$dir/src" --scratch-path "$dir/build" --product todo >&2
else
    ${SWIFT:-swift} build --package-path "$dir/src" --scratch-path "$dir/build" --product todo >&2
fi
cp "$dir/build/$config/todo" "$bin.tmp"
mv "$bin.tmp" "$bin"
echo "$commit" > "$dir/commit"
echo "$bin"
