#!/bin/sh
# Installs todo and todo-serve from this folder under PREFIX (default /usr/local):
#
#   sudo ./install.sh                    # /usr/local
#   PREFIX=$HOME/.local ./install.sh     # no root needed
#
# The programs, the man page, the bash, zsh and fish completions, and the systemd user unit
# todo-serve@.service (docs/INSTALL.md in the sources). On Debian and its derivatives it names the
# packages the programs need that are missing here; it installs no package itself.
set -eu
case "${1:-}" in
    -h|--help) sed -n '2,9s/^# \{0,1\}//p' "$0"; exit 0 ;;
    "") ;;
    *) echo "install.sh: no arguments are taken (PREFIX comes from the environment); see --help" >&2; exit 64 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
PREFIX=${PREFIX:-/usr/local}
case "$PREFIX" in
    /*) ;;
    *) echo "install.sh: PREFIX must be an absolute path, not $PREFIX" >&2; exit 64 ;;
esac
PREFIX=${PREFIX%/}
# systemd reads user units from /usr/lib, /usr/local/lib and ~/.local/share (XDG_DATA_HOME).
case "$PREFIX" in
    /usr|/usr/local) unitdir=$PREFIX/lib/systemd/user ;;
    *) unitdir=$PREFIX/share/systemd/user ;;
esac

put() { # MODE SOURCE TARGET
    mkdir -p "$(dirname "$3")"
    cp "$here/$2" "$3.new.$$"
    chmod "$1" "$3.new.$$"
    mv -f "$3.new.$$" "$3"
    echo "  $3"
}

echo "Installing under $PREFIX:"
put 755 bin/todo "$PREFIX/bin/todo"
put 755 bin/todo-serve "$PREFIX/bin/todo-serve"
put 644 share/man/man1/todo.1.gz "$PREFIX/share/man/man1/todo.1.gz"
put 644 share/bash-completion/completions/todo "$PREFIX/share/bash-completion/completions/todo"
put 644 share/zsh/vendor-completions/_todo "$PREFIX/share/zsh/site-functions/_todo"
put 644 share/fish/vendor_completions.d/todo.fish "$PREFIX/share/fish/vendor_completions.d/todo.fish"
put 644 share/doc/todo/copyright "$PREFIX/share/doc/todo/copyright"
mkdir -p "$unitdir"
sed "s#/usr/bin/todo-serve#$PREFIX/bin/todo-serve#" "$here/lib/systemd/user/todo-serve@.service" > "$unitdir/todo-serve@.service.new.$$"
chmod 644 "$unitdir/todo-serve@.service.new.$$"
mv -f "$unitdir/todo-serve@.service.new.$$" "$unitdir/todo-serve@.service"
echo "  $unitdir/todo-serve@.service"

# The Debian packages of share/doc/todo/debian-packages ("NAME needed" or "NAME recommended").
if command -v dpkg-query >/dev/null 2>&1; then
    needed="" recommended=""
    while read -r package kind; do
        [ -n "$package" ] || continue
        status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
        [ "$status" = installed ] && continue
        if [ "$kind" = needed ]; then needed="$needed $package"; else recommended="$recommended $package"; fi
    done < "$here/share/doc/todo/debian-packages"
    if [ -n "$needed" ]; then
        echo "todo needs Debian packages missing here:$needed"
        echo "  sudo apt-get install$needed$recommended"
    elif [ -n "$recommended" ]; then
        echo "Recommended, missing here:$recommended (git for the merge driver, openssh-client for ssh remotes)"
        echo "  sudo apt-get install$recommended"
    fi
else
    echo "Not a Debian system: the programs need the shared libraries of these Debian packages:"
    sed -n 's/ needed$//p' "$here/share/doc/todo/debian-packages" | sed 's/^/  /'
fi
case ":$PATH:" in
    *":$PREFIX/bin:"*) ;;
    *) echo "$PREFIX/bin is not on PATH: add it (for example in ~/.profile) to run todo by name." ;;
esac
