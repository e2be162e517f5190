#!/bin/sh
# Prints the Debian mirror this machine's apt uses for bookworm (not its security archive), read
# from /etc/apt/sources.list and /etc/apt/sources.list.d/*.list and *.sources, so that the clean
# system of `make test-dist` comes from the same place the machine's own packages do.
# Exits 1, saying so, when no source names one.
set -eu
suite=${1:-bookworm}
found=$(
    {
        # One-line form: deb [options] URI SUITE COMPONENT...
        for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
            [ -r "$f" ] || continue
            sed -e 's/\[[^]]*\]//' "$f" | awk -v s="$suite" '$1 == "deb" && $3 == s { print $2 }'
        done
        # deb822 form: one stanza per paragraph.
        for f in /etc/apt/sources.list.d/*.sources; do
            [ -r "$f" ] || continue
            awk -v s="$suite" 'BEGIN { RS = ""; FS = "\n" }
                {
                    uris = ""; suites = ""; types = ""; enabled = "yes"
                    for (i = 1; i <= NF; i++) {
                        if ($i ~ /^#/) continue
                        split($i, kv, ":[ \t]*")
                        key = tolower(kv[1]); value = substr($i, length(kv[1]) + 2); sub(/^[ \t]+/, "", value)
                        if (key == "uris") uris = value
                        else if (key == "suites") suites = " " value " "
                        else if (key == "types") types = " " value " "
                        else if (key == "enabled") enabled = tolower(value)
                    }
                    if (enabled != "no" && types ~ / deb / && suites ~ (" " s " ")) { split(uris, u, /[ \t]+/); print u[1] }
                }' "$f"
        done
    } | grep -v -e '-security' -e '^$' | head -n 1
)
if [ -z "$found" ]; then
    echo "mirror.sh: no apt source of this machine names a $suite mirror (/etc/apt/sources.list*)" >&2
    exit 1
fi
echo "$found"
