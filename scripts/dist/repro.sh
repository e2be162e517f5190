#!/bin/sh
# make dist-repro (docs/TESTING.md, "Packages"): make dist twice for the commit checked out and
# compares the results byte for byte. The first run is an ordinary make dist (its build folder
# reused); the second runs in another clone, in another folder, later, with an empty build
# folder at the same path (DIST_FRESH=1, build.sh), so that nothing but the commit is shared. On a difference it names the
# files that differ inside the packages (diffoscope, when installed, says more).
set -eu
top=$(git rev-parse --show-toplevel)
cd "$top"
work=$(mktemp -d "${TMPDIR:-/tmp}/todo-repro.XXXXXX")
keep=${DIST_REPRO_KEEP:-}
trap '[ -n "$keep" ] || rm -rf "$work"' EXIT
commit=$(git rev-parse HEAD)

echo "repro.sh: first make dist (in $top)"
DIST_OUT="$work/a" DIST_STARTED_IN="$top" sh scripts/dist/dist.sh

echo "repro.sh: second make dist (in a clone at $work/clone, with an empty build folder)"
git clone -q --no-local "$top" "$work/clone"
git -C "$work/clone" checkout -q --detach "$commit"
# The same tags, for the same version.
git -C "$top" tag --list 'v*' | while read -r t; do git -C "$work/clone" tag -f "$t" "$(git -C "$top" rev-parse "$t^{commit}")" > /dev/null; done
[ -f Package.resolved ] && cp Package.resolved "$work/clone/Package.resolved"
(cd "$work/clone" && DIST_OUT="$work/b" DIST_STARTED_IN="$work/clone" DIST_FRESH=1 sh scripts/dist/dist.sh)

status=0
for f in "$work/a/"*.deb "$work/a/"*.tar.gz; do
    name=$(basename "$f")
    if cmp -s "$f" "$work/b/$name"; then
        echo "repro.sh: $name identical ($(sha256sum < "$f" | cut -c1-16)…)"
        continue
    fi
    status=1
    echo "repro.sh: $name DIFFERS between the two builds" >&2
    if command -v diffoscope >/dev/null; then
        diffoscope --text - "$f" "$work/b/$name" | head -100 >&2 || true
    else
        mkdir -p "$work/x/a" "$work/x/b"
        case "$name" in
            *.deb) dpkg-deb -R "$f" "$work/x/a/$name"; dpkg-deb -R "$work/b/$name" "$work/x/b/$name" ;;
            *) tar -C "$work/x/a" -xzf "$f"; tar -C "$work/x/b" -xzf "$work/b/$name" ;;
        esac
        diff -rq "$work/x/a" "$work/x/b" >&2 || true
    fi
done
[ "$status" = 0 ] && echo "repro.sh: both builds of ${commit%"${commit#???????}"} are byte-identical"
exit "$status"
