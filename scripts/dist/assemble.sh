#!/bin/sh
# Packages two release binaries into OUT (docs/INSTALL.md, docs/TESTING.md "Packages"):
#   todo_VERSION_ARCH.deb, todo-VERSION-linux-ARCH.tar.gz, and a .sha256 beside each.
#
#   sh scripts/dist/assemble.sh TODO TODO_SERVE VERSION OUT
#
# TODO and TODO_SERVE are stripped release builds for this machine's architecture (they are
# run, for the completion scripts). Run from the repository's top folder (the man page, the
# copyright, the unit and the lintian overrides are read from it). The same inputs give the
# same bytes: SOURCE_DATE_EPOCH (default: the time of the commit checked out) is every file's
# time, owners are 0:0, files are sorted, gzip leaves out names and times. DIST_COMMIT (default
# HEAD) is the commit the changelog names, DIST_MAINTAINER (default: its committer) the
# package's Maintainer. make dist (dist.sh) sets all three and runs this in its export of the
# commit.
set -eu
[ $# = 4 ] || { echo "usage: assemble.sh TODO TODO_SERVE VERSION OUT" >&2; exit 64; }
todo=$1 serve=$2 version=$3 out=$4
for b in "$todo" "$serve"; do
    [ -x "$b" ] || { echo "assemble.sh: $b is not an executable" >&2; exit 66; }
done
for tool in dpkg-deb dpkg-shlibdeps gzip tar sha256sum; do
    command -v "$tool" >/dev/null || { echo "assemble.sh: $tool is missing (apt-get install dpkg-dev)" >&2; exit 69; }
done
echo "$version" | grep -qE '^[0-9][A-Za-z0-9.+~]*$' || { echo "assemble.sh: $version is not a Debian version" >&2; exit 64; }

commit=${DIST_COMMIT:-$(git rev-parse HEAD)}
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git show -s --format=%ct "$commit")}"
maintainer=${DIST_MAINTAINER:-$(git show -s --format='%cn <%ce>' "$commit")}
arch=$(dpkg --print-architecture)
export LC_ALL=C TZ=UTC0
umask 022

work=$(mktemp -d "${TMPDIR:-/tmp}/todo-assemble.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# The installed tree, under /usr, exactly the package's files.
root=$work/root
install -d "$root/usr/bin" "$root/usr/share/man/man1" "$root/usr/share/bash-completion/completions" \
    "$root/usr/share/zsh/vendor-completions" "$root/usr/share/fish/vendor_completions.d" \
    "$root/usr/share/doc/todo" "$root/usr/lib/systemd/user" "$root/usr/share/lintian/overrides"
install -m 755 "$todo" "$root/usr/bin/todo"
install -m 755 "$serve" "$root/usr/bin/todo-serve"
gzip -9n < man/todo.1 > "$root/usr/share/man/man1/todo.1.gz"
# bash-completion sources the script: argument-parser's `#!/bin/bash` line is left out.
"$todo" --generate-completion-script bash | sed '1{/^#!/d}' > "$root/usr/share/bash-completion/completions/todo"
"$todo" --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_todo"
"$todo" --generate-completion-script fish > "$root/usr/share/fish/vendor_completions.d/todo.fish"
install -m 644 packaging/debian/copyright "$root/usr/share/doc/todo/copyright"
install -m 644 packaging/systemd/todo-serve@.service "$root/usr/lib/systemd/user/todo-serve@.service"
install -m 644 packaging/debian/lintian-overrides "$root/usr/share/lintian/overrides/todo"
date=$(date -u -d "@$SOURCE_DATE_EPOCH" -R)
cat > "$work/changelog" <<EOF
todo ($version) unstable; urgency=medium

  * Built by make dist from commit $commit.

 -- $maintainer  $date
EOF
gzip -9n < "$work/changelog" > "$root/usr/share/doc/todo/changelog.Debian.gz"
chmod 644 "$root/usr/share/man/man1/todo.1.gz" "$root/usr/share/doc/todo/changelog.Debian.gz" \
    "$root/usr/share/bash-completion/completions/todo" "$root/usr/share/zsh/vendor-completions/_todo" \
    "$root/usr/share/fish/vendor_completions.d/todo.fish"

# Depends: what the binaries load, as dpkg-shlibdeps finds it (it wants a debian/control).
mkdir -p "$work/shlibs/debian"
printf 'Source: todo\nMaintainer: %s\n\nPackage: todo\nArchitecture: any\n' "$maintainer" > "$work/shlibs/debian/control"
depends=$(cd "$work/shlibs" && dpkg-shlibdeps -O "$root/usr/bin/todo" "$root/usr/bin/todo-serve" 2>"$work/shlibdeps.log") || {
    cat "$work/shlibdeps.log" >&2; echo "assemble.sh: dpkg-shlibdeps failed" >&2; exit 70; }
depends=$(echo "$depends" | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "assemble.sh: dpkg-shlibdeps found no dependencies" >&2; exit 70; }

installed_size=$(du -k -s --apparent-size "$root/usr" | cut -f1)
mkdir -p "$root/DEBIAN"
cat > "$root/DEBIAN/control" <<EOF
Package: todo
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $installed_size
Depends: $depends
Recommends: git, openssh-client
Suggests: ca-certificates
Conflicts: devtodo
Section: utils
Priority: optional
Description: household's shared to-do list, kept in git
 todo keeps a household's tasks, chores and shopping lists in a git
 repository, one file per task, and works fully offline. todo sync shares
 them through any git remote (a bare repository over ssh, https or a path),
 and a merge driver merges concurrent edits field by field, so nobody
 resolves a conflict by hand.
 .
 todo-serve is the web page (and CalDAV server) for members without a
 shell; the user unit todo-serve@.service runs it for one household.
EOF
(cd "$root" && find usr -type f | sort | xargs md5sum) > "$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
find "$root" -type d -exec chmod 755 {} +
find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

mkdir -p "$out"
deb=todo_${version}_${arch}.deb
rm -f "$out/$deb"
# One xz thread: the compressed bytes do not depend on the machine's cores.
dpkg-deb --root-owner-group -Zxz --threads-max=1 --build "$root" "$out/$deb" >/dev/null

# The tarball: the same files under one folder, laid out as PREFIX gets them, with install.sh.
name=todo-$version-linux-$arch
tree=$work/$name
mkdir -p "$tree/lib/systemd/user"
cp -a "$root/usr/bin" "$root/usr/share" "$tree/"
rm -rf "$tree/share/lintian"
cp -a "$root/usr/lib/systemd/user/todo-serve@.service" "$tree/lib/systemd/user/"
install -m 755 scripts/dist/install.sh "$tree/install.sh"
# The Debian packages the programs need, for install.sh to look for: Depends without versions
# and alternatives, then Recommends.
{
    echo "$depends" | tr ',' '\n' | sed -e 's/|.*//' -e 's/(.*)//' -e 's/ //g' | grep -v '^$' | sed 's/$/ needed/'
    echo "git recommended"
    echo "openssh-client recommended"
} > "$tree/share/doc/todo/debian-packages"
chmod 644 "$tree/share/doc/todo/debian-packages"
find "$tree" -type d -exec chmod 755 {} +
find "$tree" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
tarball=$name.tar.gz
(cd "$work" && tar --sort=name --owner=0 --group=0 --numeric-owner --format=gnu \
    --mtime="@$SOURCE_DATE_EPOCH" -cf - "$name") | gzip -9n > "$out/$tarball"

(cd "$out" && sha256sum "$deb" > "$deb.sha256" && sha256sum "$tarball" > "$tarball.sha256")
echo "$out/$deb"
echo "$out/$tarball"
