#!/bin/sh
# The release build of make dist: builds todo and todo-serve from the sources in SOURCES (an
# export of one commit, version already written) and copies them, stripped, into OUT.
#
#   sh scripts/dist/build.sh SOURCES OUT
#
# The sources are compiled from one fixed folder, DIST_SRC (default /tmp/todo-dist-src), under
# a lock (DIST_SRC.lock; a second make dist waits for the first): Swift writes the path of every
# source file into the program (#filePath, which -file-prefix-map does not rewrite), so the
# programs would otherwise differ with the folder of the clone. Only the files that changed are
# copied over, so the build folder DIST_SCRATCH (default ~/.cache/todo/dist-build) rebuilds only
# what changed since the last make dist. Flags as the Makefile's release build: static Swift
# runtime. The dependencies' versions: DIST_RESOLVED (a Package.resolved; make dist passes the
# clone's, which git ignores) when given, else the Package.resolved the last build in DIST_SRC
# left, else what SwiftPM resolves now (and keeps for the next build).
set -eu
[ $# = 2 ] || { echo "usage: build.sh SOURCES OUT" >&2; exit 64; }
sources=$1 out=$2
swift=${SWIFT:-swift}
src=${DIST_SRC:-/tmp/todo-dist-src}
scratch=${DIST_SCRATCH:-${XDG_CACHE_HOME:-$HOME/.cache}/todo/dist-build}
command -v rsync >/dev/null || { echo "build.sh: rsync is missing (apt-get install rsync)" >&2; exit 69; }

mkdir -p "$(dirname "$src")" "$scratch" "$out"
exec 9>"$src.lock"
if ! flock -n 9; then
    echo "build.sh: another make dist builds in $src; waiting for it (up to 3 hours)" >&2
    flock -w 10800 9 || { echo "build.sh: $src.lock still held after 3 hours" >&2; exit 75; }
fi
mkdir -p "$src"
# --checksum without --times: a file that did not change keeps its time (and stays built); one
# that did gets the time of now, newer than its last build whatever the commit's date.
rsync -r -l -p --checksum --delete --exclude=/Package.resolved "$sources/" "$src/"
if [ -n "${DIST_RESOLVED:-}" ] && [ -f "$DIST_RESOLVED" ]; then
    cmp -s "$DIST_RESOLVED" "$src/Package.resolved" || cp "$DIST_RESOLVED" "$src/Package.resolved"
fi
cd "$src"
for product in todo todo-serve; do
    echo "build.sh: swift build -c release --product $product (in $src, build folder $scratch)" >&2
    "$swift" build -c release --product "$product" --scratch-path "$scratch" -Xswiftc -static-stdlib >&2
done
bin=$("$swift" build -c release --scratch-path "$scratch" --show-bin-path)
for product in todo todo-serve; do
    cp "$bin/$product" "$out/$product"
done
