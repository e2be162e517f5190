#!/bin/sh
# Prints the version of the commit REV (default HEAD) of the repository in the current folder
# (docs/INSTALL.md, "Versions"):
#   on a tag vX.Y.Z            X.Y.Z
#   after the tag vX.Y.Z       X.Y.Z+<commits since>.g<7 hex>
#   with no such tag behind    <source version>+git<commit date, UTC, YYYYMMDD>.<7 hex>
# The source version is the one in Sources/TodoCore/Version.swift at REV (before its `+dev`).
# DIST_VERSION, when set, is printed instead.
set -eu
rev=${1:-HEAD}
if [ -n "${DIST_VERSION:-}" ]; then echo "$DIST_VERSION"; exit 0; fi
commit=$(git rev-parse --verify --quiet "$rev^{commit}") || { echo "version.sh: $rev is not a commit" >&2; exit 1; }
short=$(echo "$commit" | cut -c1-7)
if described=$(git describe --tags --long --match 'v[0-9]*.[0-9]*.[0-9]*' "$commit" 2>/dev/null); then
    # vX.Y.Z-<count>-g<hash>
    count=$(echo "$described" | sed -E 's/^.*-([0-9]+)-g[0-9a-f]+$/\1/')
    tag=$(echo "$described" | sed -E 's/-[0-9]+-g[0-9a-f]+$//')
    base=${tag#v}
    if echo "$base" | grep -qE '^[0-9]+\.[0-9]+\.[0-9]+$'; then
        if [ "$count" = 0 ]; then echo "$base"; else echo "$base+$count.g$short"; fi
        exit 0
    fi
fi
source=$(git show "$commit:Sources/TodoCore/Version.swift" 2>/dev/null \
    | sed -n -E 's/.*static var text: String \{ "([0-9]+\.[0-9]+\.[0-9]+)\+dev" \}.*/\1/p' | head -n 1)
[ -n "$source" ] || { echo "version.sh: no source version in Sources/TodoCore/Version.swift at $short" >&2; exit 1; }
day=$(TZ=UTC0 git show -s --format=%cd --date=format-local:%Y%m%d "$commit")
echo "$source+git$day.$short"
