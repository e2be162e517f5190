#!/bin/sh
# Installs every program the tests run besides todo: git (the judge, git daemon and
# http-backend), openssh-server (sshd run by the tests in the foreground, never as a system
# service), openssh-client (ssh, ssh-keygen, ssh-agent, ssh-add), openssl (test certificates
# and keys), python3 (the smart-HTTP server), strace (watching system calls), gcc (cc, for
# small probe libraries), util-linux and mount (unshare and mount for a private tmpfs),
# binutils (readelf, to read which shared libraries the executable loads; nm, which libraries
# it links), curl (a client of todo-serve's pages and reminder links).
# Tests/TestKit/Programs.swift names the same packages when a program is missing.
#
# As root it installs the missing Debian packages with apt-get; as anyone else it only
# prints what to install and fails. Safe to run again: it does nothing when all is there.
set -eu

missing=""
need() { # need PACKAGE PATH...: PACKAGE is missing unless every PATH exists
    package=$1
    shift
    for path in "$@"; do
        if [ ! -e "$path" ]; then
            missing="$missing $package"
            return
        fi
    done
}

need git /usr/bin/git
need openssh-server /usr/sbin/sshd
need openssh-client /usr/bin/ssh /usr/bin/ssh-keygen /usr/bin/ssh-agent /usr/bin/ssh-add /usr/bin/ssh-keyscan
need openssl /usr/bin/openssl
need python3 /usr/bin/python3
need strace /usr/bin/strace
need gcc /usr/bin/cc
need util-linux /usr/bin/unshare
need mount /usr/bin/mount
need binutils /usr/bin/readelf /usr/bin/nm
need curl /usr/bin/curl

if [ -x /usr/bin/git ] && [ ! -x "$(/usr/bin/git --exec-path)/git-http-backend" ]; then
    missing="$missing git"
fi

if [ -z "$missing" ]; then
    echo "scripts/servers/install.sh: all the packages the tests need are installed"
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "scripts/servers/install.sh: missing packages:$missing" >&2
    echo "install them with: sudo apt-get install -y --no-install-recommends$missing" >&2
    exit 1
fi

installing_sshd=no
case " $missing " in *" openssh-server "*) installing_sshd=yes ;; esac

policy=/usr/sbin/policy-rc.d
made_policy=no
cleanup() {
    if [ "$made_policy" = yes ]; then rm -f "$policy"; fi
}
trap cleanup EXIT INT TERM

if [ "$installing_sshd" = yes ]; then
    # The tests start their own sshd. Keep the package's system service from ever running:
    # Debian's ssh unit and init script both skip starting while this file exists, and
    # policy-rc.d refuses any start during the install itself.
    mkdir -p /etc/ssh
    touch /etc/ssh/sshd_not_to_be_run
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy"
        chmod 755 "$policy"
        made_policy=yes
    fi
fi

export DEBIAN_FRONTEND=noninteractive
# An old or empty package list makes the install fail: refresh it once and retry.
# shellcheck disable=SC2086
if ! apt-get install -y --no-install-recommends $missing; then
    apt-get update
    apt-get install -y --no-install-recommends $missing
fi

if [ "$installing_sshd" = yes ]; then
    if command -v systemctl >/dev/null 2>&1; then
        systemctl disable ssh.service ssh.socket >/dev/null 2>&1 || true
    fi
    if command -v update-rc.d >/dev/null 2>&1; then
        update-rc.d ssh disable >/dev/null 2>&1 || true
    fi
fi
echo "scripts/servers/install.sh: installed$missing"
