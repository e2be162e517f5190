#!/bin/sh
# Prints the path of a tarball of a clean Debian 12 (debootstrap --variant=minbase, from the
# mirror this machine's apt uses: mirror.sh), made once and kept under
# ${XDG_CACHE_HOME:-~/.cache}/todo/test-dist. Root only. `make test-dist` unpacks a copy of it
# for every run, so no run sees what an earlier one installed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
arch=$(dpkg --print-architecture)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/todo/test-dist
tarball=$cache/bookworm-minbase-$arch.tar.gz
if [ -s "$tarball" ]; then echo "$tarball"; exit 0; fi
[ "$(id -u)" = 0 ] || { echo "clean-system.sh: debootstrap needs root" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "clean-system.sh: debootstrap is not installed (apt-get install debootstrap)" >&2; exit 1; }
mirror=$(sh "$here/mirror.sh" bookworm)
mkdir -p "$cache"
work=$(mktemp -d "$cache/make.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "clean-system.sh: debootstrap --variant=minbase bookworm from $mirror (a few minutes, once)" >&2
timeout 1800 debootstrap --variant=minbase --arch="$arch" bookworm "$work/root" "$mirror" > "$work/debootstrap.log" 2>&1 || {
    tail -20 "$work/debootstrap.log" >&2
    echo "clean-system.sh: debootstrap failed (log above)" >&2
    exit 1
}
# No downloaded packages kept in the image.
rm -rf "$work/root/var/cache/apt/archives/"*.deb "$work/root/var/lib/apt/lists/"*_Packages
tar -C "$work/root" --numeric-owner -czf "$work/system.tar.gz" .
mv "$work/system.tar.gz" "$tarball"
echo "$tarball"
