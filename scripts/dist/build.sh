#!/bin/sh
# The release build of make dist: builds todo and todo-serve from the sources in SOURCES (an
# export of one commit, version already written) and copies them into OUT.
#
#   sh scripts/dist/build.sh SOURCES OUT
#
# Swift writes the path of source files into the programs (#file and #filePath, which
# -file-prefix-map does not rewrite; the dependencies pass them as default arguments), both of
# the project's files and of the dependencies' checkouts in the build folder. So both are fixed
# paths, the same for every clone and every user: the sources are copied to DIST_ROOT/src and
# built in DIST_ROOT/build (DIST_ROOT: /var/tmp/todo-dist, which outlives a reboot, so the build
# folder is reused), under a lock (DIST_ROOT.lock; a second make dist waits for the first).
# Only the files that changed are copied over, so a build rebuilds only what changed since the
# last one. DIST_SCRATCH names another build folder (its path then ends up in the programs).
# DIST_FRESH=1 builds in an empty build folder at the same path, the kept one set aside
# meanwhile and put back after (make dist-repro).
# Flags as the Makefile's release build: static Swift runtime. The dependencies' versions:
# DIST_RESOLVED (a Package.resolved; make dist passes the clone's, which git ignores) when
# given, else the Package.resolved the last build in DIST_ROOT/src left, else what SwiftPM
# resolves now (and keeps for the next build).
set -eu
[ $# = 2 ] || { echo "usage: build.sh SOURCES OUT" >&2; exit 64; }
sources=$1 out=$2
swift=${SWIFT:-swift}
droot=${DIST_ROOT:-/var/tmp/todo-dist}
src=$droot/src
scratch=${DIST_SCRATCH:-$droot/build}
command -v rsync >/dev/null || { echo "build.sh: rsync is missing (apt-get install rsync)" >&2; exit 69; }

mkdir -p "$droot" "$out"
exec 9>"$droot.lock"
if ! flock -n 9; then
    echo "build.sh: another make dist builds in $droot; waiting for it (up to 3 hours)" >&2
    flock -w 10800 9 || { echo "build.sh: $droot.lock still held after 3 hours" >&2; exit 75; }
fi
if [ "${DIST_FRESH:-}" = 1 ]; then
    rm -rf "$scratch.fresh-aside"
    if [ -d "$scratch" ]; then mv "$scratch" "$scratch.fresh-aside"; fi
    # However the build ends, the kept build folder comes back.
    trap 'rm -rf "$scratch"; if [ -d "$scratch.fresh-aside" ]; then mv "$scratch.fresh-aside" "$scratch"; fi' EXIT
    trap 'exit 130' INT TERM
fi
mkdir -p "$src" "$scratch"
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
