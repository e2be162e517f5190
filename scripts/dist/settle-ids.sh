#!/bin/sh
# Makes the bytes of a linked program depend on its code alone (docs/TESTING.md, "Packages"):
#
#   sh scripts/dist/settle-ids.sh PROGRAM...
#
# Two builds of one commit in the same folders give the same code but not the same program:
# swiftc writes into every object a 16-byte hash of the module it compiled (`.swift_modhash`,
# kept by the linker and by strip), and that hash covers the debug information, which names the
# signatures of the C modules (clang's module cache) the Swift module imports; those change
# with the times of the header files (a fresh checkout, a fresh copy of the sources). So
# GitKit, SystemPackage and Subprocess, which import C modules of their own, got other hashes in
# a build from an empty build folder, and the linker's build id (a hash of the whole output)
# changed with them. The hashes only serve the compiler, to skip writing an object that would
# not change; nothing reads them at run time. This writes zeros over `.swift_modhash`, then
# writes, as the build id, the SHA-1 of the program with its build id zeroed: a build id that
# is a function of the program's content, as the linker's is meant to be.
set -eu
[ $# -ge 1 ] || { echo "usage: settle-ids.sh PROGRAM..." >&2; exit 64; }
for tool in readelf od dd sha1sum; do
    command -v "$tool" >/dev/null || { echo "settle-ids.sh: $tool is missing (apt-get install binutils coreutils)" >&2; exit 69; }
done

# "OFFSET SIZE" (decimal) of section NAME of PROGRAM; nothing when it has none.
section() { # PROGRAM NAME
    LC_ALL=C readelf -S -W "$1" | awk -v name="$2" '
        { sub(/^ *\[ *[0-9]+\] */, "") }
        $1 == name { print $4, $5; exit }' | while read -r off size; do
        echo "$((0x$off)) $((0x$size))"
    done
}

# Writes SIZE zero bytes at OFFSET of PROGRAM.
zero() { # PROGRAM OFFSET SIZE
    dd if=/dev/zero of="$1" bs=1 seek="$2" count="$3" conv=notrunc status=none
}

for program in "$@"; do
    [ -f "$program" ] || { echo "settle-ids.sh: $program is not a file" >&2; exit 66; }
    hashes=$(section "$program" .swift_modhash)
    if [ -n "$hashes" ]; then
        # shellcheck disable=SC2086 # OFFSET SIZE
        zero "$program" $hashes
    fi
    note=$(section "$program" .note.gnu.build-id)
    [ -n "$note" ] || { echo "settle-ids.sh: $program has no build id" >&2; exit 65; }
    offset=${note% *} size=${note#* }
    # The note: name size 4, descriptor size 20, type 3 (NT_GNU_BUILD_ID), "GNU\0", then the id.
    header=$(od -An -tu4 -j "$offset" -N 12 "$program" | tr -s ' ' | sed 's/^ //')
    [ "$size" = 36 ] && [ "$header" = "4 20 3" ] || {
        echo "settle-ids.sh: $program: the build id note is not a 20-byte GNU build id ($header)" >&2; exit 65; }
    id=$((offset + 16))
    zero "$program" "$id" 20
    sum=$(sha1sum < "$program" | cut -c1-40)
    # The 40 hex digits as 20 bytes (printf's octal escapes: POSIX sh has no \x).
    escapes=$(echo "$sum" | sed 's/../& /g' | {
        read -r line
        for pair in $line; do printf '\\%03o' "$((0x$pair))"; done
    })
    # shellcheck disable=SC2059 # the escapes are the format
    printf "$escapes" | dd of="$program" bs=1 seek="$id" count=20 conv=notrunc status=none
done
