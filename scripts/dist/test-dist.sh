#!/bin/sh
# make test-dist (docs/TESTING.md, "Packages"): the package and the tarball of make dist,
# installed and used in a clean Debian 12 as a household would. Root only (chroot, mount).
#
#   sh scripts/dist/test-dist.sh [DIST_OUT]
#
# DIST_OUT (default dist) holds make dist's output; the newest todo_*_ARCH.deb and
# todo-*-linux-ARCH.tar.gz there are tested, unless TEST_DIST_DEB and TEST_DIST_TARBALL name
# others. The clean system is clean-system.sh's (debootstrap --variant=minbase, made once and
# kept under ~/.cache/todo/test-dist), unpacked afresh for every run into a folder under
# /var/tmp that is removed at the end (kept, with its path printed, when TEST_DIST_KEEP=1).
# Before the package, a member (carol) makes and serves a household with an older `make
# install` in /usr/local/bin: the programs in TEST_DIST_OLD_INSTALL (a folder with todo and
# todo-serve, say release builds of an older commit; default the tarball's own). After the
# package and `make uninstall`, her household must keep working from /usr/bin. The package
# installs over an older one: TEST_DIST_OLDER_DEB (a package of a lower version), else the
# package under test with Version 0.0.1, made here.
# Every step that could hang has a time limit; the first failing step stops the run and says
# which it was. TEST_DIST_EXPECT_VERSION is what --version must print (default: the package's
# version; `skip` to package programs built elsewhere, DIST_BINARIES, without checking it).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-dist}
arch=$(dpkg --print-architecture)
[ "$(id -u)" = 0 ] || { echo "test-dist.sh: needs root (chroot, mount): sudo make test-dist" >&2; exit 77; }

newest() { # newest file matching a pattern in $out
    # shellcheck disable=SC2012
    ls -t "$out"/$1 2>/dev/null | head -n 1
}
deb=${TEST_DIST_DEB:-$(newest "todo_*_$arch.deb")}
tarball=${TEST_DIST_TARBALL:-$(newest "todo-*-linux-$arch.tar.gz")}
[ -f "$deb" ] || { echo "test-dist.sh: no todo_*_$arch.deb in $out: run make dist first" >&2; exit 66; }
[ -f "$tarball" ] || { echo "test-dist.sh: no todo-*-linux-$arch.tar.gz in $out: run make dist first" >&2; exit 66; }
version=$(dpkg-deb -f "$deb" Version)
expect=${TEST_DIST_EXPECT_VERSION:-$version}
started=$(date +%s)
step() { echo "test-dist.sh: [$(($(date +%s) - started)) s] $*"; }
fail() { echo "test-dist.sh: FAILED: $*" >&2; exit 1; }
work_lintian=$(mktemp "${TMPDIR:-/tmp}/todo-lintian.XXXXXX")
echo "test-dist.sh: $deb and $tarball ($version)"

step "lintian: no error or warning the package's overrides do not cover"
command -v lintian >/dev/null || fail "lintian is missing (sh scripts/deps.sh --dist)"
timeout 600 lintian --fail-on error,warning "$deb" > "$work_lintian" 2>&1 || {
    cat "$work_lintian"; fail "lintian"; }
rm -f "$work_lintian"

system=$(sh "$here/clean-system.sh")
work=$(mktemp -d /var/tmp/todo-test-dist.XXXXXX)
root=$work/root
mounted=""
cleanup() {
    status=$?
    for m in $mounted; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
    # Never remove a tree that still has something mounted inside it.
    if findmnt -rn -o TARGET | grep -q "^$root"; then
        echo "test-dist.sh: something is still mounted under $root; left in place" >&2
    elif [ "${TEST_DIST_KEEP:-}" = 1 ]; then
        echo "test-dist.sh: the system is kept in $root" >&2
    else
        rm -rf "$work"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

step "unpacking the clean system ($system)"
mkdir "$root"
tar -C "$root" --numeric-owner -xzf "$system"
mount -t proc proc "$root/proc"
mounted="$root/proc"
cp /etc/resolv.conf "$root/etc/resolv.conf"
printf 'APT::Install-Suggests "false";\n' > "$root/etc/apt/apt.conf.d/90todo-test"

# As root in the system: apt without questions.
in_root() { # TIMEOUT COMMAND...
    limit=$1; shift
    timeout --kill-after=10 "$limit" chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
        DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 "$@"
}
# What every user script below starts with: a failing command is named, and the server is
# started, asked and stopped the same way each time.
cat > "$root/tmp/test-dist-helpers.sh" <<'EOF'
trap 'echo "test-dist.sh: this failed: $BASH_COMMAND" >&2' ERR
# todo serve on a free port of 127.0.0.1, its output in LOG: sets server (its pid) and port.
start_server() { # LOG
    todo serve --listen 127.0.0.1:0 --sync-every 0 > "$1" 2>&1 &
    server=$!
    port=""
    for _ in $(seq 1 300); do
        port=$(sed -n 's#^todo-serve: listening on http://127\.0\.0\.1:\([0-9]*\)/$#\1#p' "$1")
        [ -n "$port" ] && return 0
        kill -0 "$server" 2>/dev/null || { cat "$1"; return 1; }
        sleep 0.1
    done
    echo "todo serve did not say where it listens within 30 s"; cat "$1"; kill "$server"; return 1
}
# SIGTERM, and the server must exit 0.
stop_server() { # LOG
    kill -TERM "$server"
    wait "$server" || { echo "todo serve exited $? after SIGTERM"; cat "$1"; return 1; }
}
# The whole answer to GET /health, without carriage returns.
get_health() {
    exec 3<>"/dev/tcp/127.0.0.1/$port"
    printf 'GET /health HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nConnection: close\r\n\r\n' "$port" >&3
    timeout 10 cat <&3 | tr -d '\r'
    exec 3>&-
}
EOF
chmod 644 "$root/tmp/test-dist-helpers.sh"
# As an ordinary user in the system, a bash script on stdin, after the helpers.
as_user() { # USER TIMEOUT
    { echo '. /tmp/test-dist-helpers.sh'; cat; } |
        timeout --kill-after=10 "$2" chroot --userspec="$1:$1" "$root" /usr/bin/env -i HOME="/home/$1" USER="$1" \
        LOGNAME="$1" PATH=/usr/bin:/bin LANG=C.UTF-8 TZ=UTC TERM=dumb XDG_RUNTIME_DIR="/tmp/runtime-$1" /bin/bash -euo pipefail -s
}

step "useradd alice (the member who runs the tests), and the tarball's install.sh before the package"
in_root 60 useradd --create-home --shell /bin/bash alice || fail "useradd"
in_root 60 install -d -o alice -g alice -m 700 /tmp/runtime-alice || fail "runtime folder"
cp "$tarball" "$root/tmp/todo.tar.gz"
chmod 644 "$root/tmp/todo.tar.gz"
# In the clean system nothing the programs load beyond the C library is there yet: install.sh
# must name the missing packages (and still install).
as_user alice 120 > "$work/install-before.txt" 2>&1 <<'EOF' || { cat "$work/install-before.txt"; fail "install.sh under ~/.local in the clean system"; }
mkdir -p ~/unpack && tar -C ~/unpack -xzf /tmp/todo.tar.gz
cd ~/unpack/todo-*-linux-*/
PREFIX=$HOME/.local ./install.sh
EOF
cat "$work/install-before.txt"
grep -q "^todo needs Debian packages missing here:.*libxml2" "$work/install-before.txt" || fail "install.sh did not name libxml2 as missing"
grep -q "sudo apt-get install .*git" "$work/install-before.txt" || fail "install.sh did not name git (recommended)"
# And takes nothing away again: the next user of ~/.local is the check after the purge.
as_user alice 60 <<'EOF' || fail "removing what install.sh installed"
rm -rf ~/.local ~/unpack
EOF

step "apt-get update"
in_root 600 apt-get update -q > "$work/apt-update.txt" 2>&1 || { cat "$work/apt-update.txt"; fail "apt-get update"; }

# The files `make install` installs with PREFIX=/usr/local and `make uninstall` removes (Makefile).
make_installed="/usr/local/bin/todo /usr/local/bin/todo-serve /usr/local/share/man/man1/todo.1"
make_installed="$make_installed /usr/local/share/bash-completion/completions/todo /usr/local/share/zsh/site-functions/_todo"
make_installed="$make_installed /usr/local/share/fish/vendor_completions.d/todo.fish"
old_bin=${TEST_DIST_OLD_INSTALL:-$work/tarball-bin}
if [ -z "${TEST_DIST_OLD_INSTALL:-}" ]; then
    mkdir -p "$old_bin"
    tar -C "$old_bin" -xzf "$tarball" --strip-components=2 --wildcards '*/bin/todo' '*/bin/todo-serve'
fi
for b in todo todo-serve; do [ -x "$old_bin/$b" ] || fail "TEST_DIST_OLD_INSTALL has no executable $b ($old_bin/$b)"; done
step "an older make install in /usr/local/bin ($old_bin): carol makes and serves a household with it"
# What the programs load (the package's Depends, without versions), and git: the machine that
# built them had those. openssh-client, recommended, stays for the package to bring.
libraries=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed -e 's/|.*//' -e 's/(.*)//' -e 's/ //g' | grep -v '^$' | tr '\n' ' ')
# shellcheck disable=SC2086 # one word per package
in_root 900 apt-get install -y -q --no-install-recommends $libraries git > "$work/apt-libraries.txt" 2>&1 || {
    cat "$work/apt-libraries.txt"; fail "apt-get install $libraries git"; }
for path in $make_installed; do mkdir -p "$root${path%/*}"; done
install -m 755 "$old_bin/todo" "$root/usr/local/bin/todo"
install -m 755 "$old_bin/todo-serve" "$root/usr/local/bin/todo-serve"
install -m 644 "$here/../../man/todo.1" "$root/usr/local/share/man/man1/todo.1"
"$old_bin/todo" --generate-completion-script bash > "$root/usr/local/share/bash-completion/completions/todo"
"$old_bin/todo" --generate-completion-script zsh > "$root/usr/local/share/zsh/site-functions/_todo"
"$old_bin/todo" --generate-completion-script fish > "$root/usr/local/share/fish/vendor_completions.d/todo.fish"
in_root 60 useradd --create-home --shell /bin/bash carol || fail "useradd carol"
in_root 60 install -d -o carol -g carol -m 700 /tmp/runtime-carol || fail "runtime folder"
as_user carol 300 > "$work/carol-before.txt" 2>&1 <<'EOF' || { cat "$work/carol-before.txt"; fail "carol's household with the older make install"; }
# /usr/local/bin first, as in Debian's default PATH.
export PATH=/usr/local/bin:/usr/bin:/bin
test "$(command -v todo)" = /usr/local/bin/todo
git init -q --bare ~/home.git
todo init --name Carol --email carol@example.org --remote ~/home.git
todo add "Water the plants"
todo sync
todo list | grep -q "Water the plants"
# A household made where /usr/local/bin is not on PATH (cron, a script): its merge driver names
# /usr/local/bin/todo by its path.
PATH=/usr/bin:/bin /usr/local/bin/todo init --household cabin --name Carol --email carol@example.org
git -C ~/.local/share/todo/cabin config merge.todo.driver | grep -q "^'/usr/local/bin/todo' merge-driver "
todo add -H cabin "Close the shutters"
todo serve install --listen 127.0.0.1:8080 > /dev/null
grep -q "^ExecStart=/usr/local/bin/todo-serve -H home --listen 127.0.0.1:8080$" ~/.config/systemd/user/todo-serve-home.service
todo serve invite Carol > ~/invite.txt
# Served: the older server answers.
start_server ~/serve-old.log
answer=$(get_health)
stop_server ~/serve-old.log
[ "$(echo "$answer" | sed '1,/^$/d')" = ok ] || { echo "$answer"; exit 1; }
EOF

# A package of a lower version first (TEST_DIST_OLDER_DEB, else this one as Version 0.0.1), so
# that the package under test installs over it.
cp "$deb" "$root/tmp/$(basename "$deb")"
chmod 644 "$root/tmp/$(basename "$deb")"
if [ -n "${TEST_DIST_OLDER_DEB:-}" ]; then
    cp "$TEST_DIST_OLDER_DEB" "$root/tmp/older.deb"
else
    dpkg-deb -R "$deb" "$work/older"
    sed -i 's/^Version: .*/Version: 0.0.1/' "$work/older/DEBIAN/control"
    dpkg-deb --root-owner-group --build "$work/older" "$root/tmp/older.deb" > /dev/null
    rm -rf "$work/older"
fi
chmod 644 "$root/tmp/older.deb"
older=$(dpkg-deb -f "$root/tmp/older.deb" Version)
dpkg --compare-versions "$older" lt "$version" || fail "the older package is $older, not lower than $version"
step "apt-get install ./older.deb (todo $older), then ./$(basename "$deb") over it (its Recommends come along)"
in_root 900 apt-get install -y -q ./tmp/older.deb > "$work/apt-older.txt" 2>&1 || {
    cat "$work/apt-older.txt"; fail "installing todo $older first"; }
[ "$(in_root 30 dpkg-query -W -f='${Version}' todo)" = "$older" ] || fail "todo $older was not installed"
in_root 900 apt-get install -y -q "./tmp/$(basename "$deb")" > "$work/apt-install.txt" 2>&1 || {
    cat "$work/apt-install.txt"; fail "apt-get install of the package"; }
for p in git openssh-client; do
    in_root 30 dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null | grep -qx installed || fail "$p (Recommends) was not installed"
done
installed=$(in_root 30 dpkg-query -W -f='${Version}' todo)
[ "$installed" = "$version" ] || fail "dpkg says todo $installed is installed, not $version"

step "then the test's own tools, without their recommendations: man-db, bash-completion, systemd, curl"
in_root 900 apt-get install -y -q --no-install-recommends man-db bash-completion systemd curl > "$work/apt-tools.txt" 2>&1 || {
    cat "$work/apt-tools.txt"; fail "apt-get install man-db bash-completion systemd curl"; }

step "make uninstall; carol's household keeps working from /usr/bin: list, sync, the merge driver, doctor, the page"
for path in $make_installed; do rm -f "$root$path"; done
as_user carol 300 > "$work/carol-after.txt" 2>&1 <<'EOF' || { cat "$work/carol-after.txt"; fail "carol's household after the package and make uninstall (above)"; }
export PATH=/usr/local/bin:/usr/bin:/bin
test "$(command -v todo)" = /usr/bin/todo
todo list | grep -q "Water the plants"
todo add "Buy seeds"
todo sync
# The setting that names todo by name finds /usr/bin/todo; the one that named
# /usr/local/bin/todo by its path is pointed at the todo running by the next command that
# changes the household (a command that only reads writes nothing; docs/MERGE.md).
test "$(git -C ~/.local/share/todo/home config merge.todo.driver)" = "todo merge-driver %O %A %B %P"
todo list -H cabin | grep -q "Close the shutters"
git -C ~/.local/share/todo/cabin config merge.todo.driver | grep -q "^'/usr/local/bin/todo' merge-driver "
todo add -H cabin "Open the shutters"
test "$(git -C ~/.local/share/todo/cabin config merge.todo.driver)" = "todo merge-driver %O %A %B %P"
# The unit `todo serve install` wrote names programs that are gone: doctor says so (exit 65),
# with the one command that rewrites it.
status=0
todo doctor --offline > ~/doctor.txt || status=$?
cat ~/doctor.txt
test "$status" = 65
grep -q "^problem: serve-unit: .*/todo-serve-home.service names /usr/local/bin/todo-serve and /usr/local/bin/todo, which are gone" ~/doctor.txt
rewrite=$(sed -n 's/^problem: serve-unit: .* Rewrite it with `\(todo serve install [^`]*\)`.*/\1/p' ~/doctor.txt)
test "$rewrite" = "todo serve install -H home --listen 127.0.0.1:8080"
$rewrite > /dev/null
unit=~/.config/systemd/user/todo-serve-home.service
grep -q "^ExecStart=/usr/bin/todo-serve -H home --listen 127.0.0.1:8080$" "$unit"
grep -q "^Environment=TODO_SERVE_TODO=/usr/bin/todo$" "$unit"
test -z "$(systemd-analyze --user verify --man=no "$unit" 2>&1)"
todo doctor --offline > ~/doctor.txt
grep -q "^ok: serve-unit: .* runs /usr/bin/todo-serve\.$" ~/doctor.txt
# The page: the invite the older server made signs in on the package's server, which shows
# the household.
start_server ~/serve.log
token=$(sed -n 's#.*/i/##p' ~/invite.txt)
signin=$(curl -s -m 10 -c ~/cookies -o /dev/null -w '%{http_code}' -d "token=$token" "http://127.0.0.1:$port/i" || true)
page=$(curl -s -m 10 -b ~/cookies "http://127.0.0.1:$port/tasks" || true)
stop_server ~/serve.log
test "$signin" = 303 || { echo "POST /i answered $signin"; exit 1; }
echo "$page" | grep -q "Water the plants" || { echo "$page" | head -40; exit 1; }
echo "$page" | grep -q "Buy seeds" || { echo "$page" | head -40; exit 1; }
EOF

step "as alice: --version, init with a path remote, add, list, sync, clone as a second member"
as_user alice 300 <<EOF || fail "the household steps (above)"
if [ "$expect" != skip ]; then
    test "\$(todo --version)" = "$expect" || { echo "todo --version: \$(todo --version)"; exit 1; }
    test "\$(todo-serve --version)" = "$expect" || { echo "todo-serve --version: \$(todo-serve --version)"; exit 1; }
fi
git init -q --bare ~/home.git
todo init --name Alice --email alice@example.org --remote ~/home.git
todo add "Buy milk" --tag groceries
todo list | grep -q "Buy milk"
todo sync
# Bob: another member, with his own clone (his own TODO_HOME, as on his own machine).
export TODO_HOME=\$HOME/bob
todo clone ~/home.git --name Bob --email bob@example.org
todo list | grep -q "Buy milk"
todo add "Call the plumber"
todo sync
unset TODO_HOME
todo sync
todo list | grep -q "Call the plumber"
# The merge driver the household names is the installed todo (by name, found on PATH).
git -C ~/.local/share/todo/home config merge.todo.driver | grep -q "^todo merge-driver "
test "\$(command -v todo)" = /usr/bin/todo
EOF

step "as alice: man todo renders; bash completes a subcommand"
as_user alice 60 > "$work/man.txt" 2>"$work/man-errors.txt" <<'EOF' || { cat "$work/man-errors.txt"; fail "man todo"; }
MANWIDTH=80 man -P cat todo
EOF
grep -q "household's shared to-do list, kept in git" "$work/man.txt" || { head -20 "$work/man.txt"; fail "man todo did not render the page"; }
[ ! -s "$work/man-errors.txt" ] || { cat "$work/man-errors.txt"; fail "man todo wrote to stderr"; }
as_user alice 60 <<'EOF' || fail "bash completion"
# bash-completion is written for interactive shells, not for -e, -u or pipefail (its loader
# returns 124 when it loaded a completion).
set +e +u +o pipefail
trap - ERR
source /usr/share/bash-completion/bash_completion
_completion_loader todo
fn=$(complete -p todo | sed -E 's/.* -F ([^ ]+) .*/\1/')
COMP_WORDS=(todo ini); COMP_CWORD=1; COMP_LINE="todo ini"; COMP_POINT=${#COMP_LINE}
"$fn" todo ini todo
printf '%s\n' "${COMPREPLY[@]}" | grep -qx init || { echo "completions of 'todo ini': ${COMPREPLY[*]:-none}"; exit 1; }
EOF

step "as alice: todo serve answers GET /health with ok; todo serve install writes a unit systemd-analyze accepts"
as_user alice 120 <<'EOF' || fail "todo serve"
start_server ~/serve.log
answer=$(get_health)
stop_server ~/serve.log
echo "$answer" | head -n 1 | grep -q "^HTTP/1.1 200" || { echo "$answer"; exit 1; }
[ "$(echo "$answer" | sed '1,/^$/d')" = ok ] || { echo "$answer"; exit 1; }
EOF
as_user alice 60 > "$work/verify.txt" 2>&1 <<'EOF' || { cat "$work/verify.txt"; fail "todo serve install"; }
todo serve install > /dev/null
unit=~/.config/systemd/user/todo-serve-home.service
grep -q "^ExecStart=/usr/bin/todo-serve " "$unit"
systemd-analyze --user verify --man=no "$unit"
# The package's own unit, for the household home.
cd /usr/lib/systemd/user && systemd-analyze --user verify --man=no todo-serve@home.service
EOF
[ ! -s "$work/verify.txt" ] || { cat "$work/verify.txt"; fail "systemd-analyze --user verify printed something"; }

step "apt-get remove --purge todo: nothing it listed remains (folders other packages share aside)"
in_root 30 dpkg -L todo > "$work/files.txt"
in_root 300 apt-get remove --purge -y -q todo > "$work/apt-remove.txt" 2>&1 || { cat "$work/apt-remove.txt"; fail "apt-get remove --purge todo"; }
left=""
while read -r path; do
    [ "$path" = /. ] && continue
    [ -e "$root$path" ] || [ -L "$root$path" ] || continue
    if [ -d "$root$path" ] && [ ! -L "$root$path" ] && in_root 30 dpkg-query -S "$path" > /dev/null 2>&1; then continue; fi
    left="$left $path"
done < "$work/files.txt"
[ -z "$left" ] || fail "left after the purge:$left"

step "the tarball's install.sh under ~/.local, in the same system"
as_user alice 120 > "$work/install-after.txt" 2>&1 <<EOF || { cat "$work/install-after.txt"; fail "install.sh under ~/.local"; }
mkdir -p ~/unpack && tar -C ~/unpack -xzf /tmp/todo.tar.gz
cd ~/unpack/todo-*-linux-*/
PREFIX=\$HOME/.local ./install.sh
if [ "$expect" != skip ]; then
    test "\$(~/.local/bin/todo --version)" = "$expect"
    test "\$(~/.local/bin/todo-serve --version)" = "$expect"
fi
~/.local/bin/todo list | grep -q "Call the plumber"
grep -q "^ExecStart=\$HOME/.local/bin/todo-serve -H %i " ~/.local/share/systemd/user/todo-serve@.service
test -f ~/.local/share/man/man1/todo.1.gz
test -f ~/.local/share/bash-completion/completions/todo
EOF
cat "$work/install-after.txt"
if grep -q "needs Debian packages" "$work/install-after.txt"; then fail "install.sh names packages as missing that the package brought"; fi
step "passed: $version"
