#!/bin/sh
# Installs what building `todo` needs on Debian or Ubuntu: libgit2-dev and libxml2-dev (found
# through pkg-config; libxml2 is todo-serve's, for CalDAV request bodies), pkg-config itself and
# git; with --bench also what `make bench` uses beyond that (python3, GNU time, Taskwarrior to
# compare with, and a C compiler for the slow-disk rows' preload library);
# with --test what the calendar feed's tests read feeds with: Python's icalendar package
# (python3-icalendar, for the system's /usr/bin/python3) and the calendar client khal, and the
# SMTP server the reminder tests receive mail with (python3-aiosmtpd); Debian's age and
# age-keygen (age), the judge of the age files AgeTests write and read; systemd-analyze (systemd),
# which checks the unit `todo serve install` writes; and the browser the web
# page's test drives (scripts/browser-test.py): Debian's chromium and chromium-driver, and the
# selenium package from PyPI for the system's /usr/bin/python3 (pip, as root, after the apt
# packages; Debian's python3-selenium is older than the Chromium it would drive), with
# axe-playwright-python for the axe-core it carries; and the
# CalDAV clients the server's tests drive (scripts/caldav/): a virtual environment in
# ${XDG_CACHE_HOME:-~/.cache}/todo/caldav-venv with the pinned PyPI packages in CALDAV_PINNED
# (python3-venv from apt when `python3 -m venv` cannot make one), made again only when the list
# in its marker file differs from CALDAV_PINNED;
# with --dist what `make dist` and `make test-dist` use (scripts/dist/): dpkg-dev
# (dpkg-shlibdeps), rsync, lintian, and debootstrap for the clean system.
# Swift itself is not an apt package: when `swift` is missing this says where to get it and fails.
#
# As root it installs the missing packages with apt-get; as anyone else it prints the exact
# command to run and fails. Safe to run again: it does nothing when all is there.
#
# The test and benchmark servers' packages (git, sshd, openssl) are installed by
# scripts/servers/install.sh, which follows the same rules.
set -eu

bench=no
tests=no
dist=no
for arg in "$@"; do
    case "$arg" in
        --bench) bench=yes ;;
        --test) tests=yes ;;
        --dist) dist=yes ;;
        *) echo "usage: scripts/deps.sh [--bench] [--test] [--dist]" >&2; exit 64 ;;
    esac
done

missing=""
add() { # add PACKAGE: record PACKAGE as missing (once)
    case " $missing " in *" $1 "*) ;; *) missing="$missing $1" ;; esac
}

command -v pkg-config >/dev/null 2>&1 || add pkg-config
# libgit2-dev is what provides libgit2.pc; without pkg-config we cannot ask, so ask dpkg.
if command -v pkg-config >/dev/null 2>&1; then
    pkg-config --exists libgit2 || add libgit2-dev
elif ! dpkg-query -W -f '${Status}' libgit2-dev 2>/dev/null | grep -q 'install ok installed'; then
    add libgit2-dev
fi
# libxml2-dev provides libxml-2.0.pc, the same way.
if command -v pkg-config >/dev/null 2>&1; then
    pkg-config --exists libxml-2.0 || add libxml2-dev
elif ! dpkg-query -W -f '${Status}' libxml2-dev 2>/dev/null | grep -q 'install ok installed'; then
    add libxml2-dev
fi
# git: SwiftPM clones the package's dependencies with it, and the demo shows its log.
command -v git >/dev/null 2>&1 || add git
if [ "$bench" = yes ]; then
    command -v python3 >/dev/null 2>&1 || add python3
    [ -x /usr/bin/time ] || add time # GNU time: peak memory of a command
    command -v task >/dev/null 2>&1 || add taskwarrior # the peer beside git
    command -v cc >/dev/null 2>&1 || add gcc # builds scripts/bench/syncprobe.c
fi
if [ "$dist" = yes ]; then
    command -v dpkg-shlibdeps >/dev/null 2>&1 || add dpkg-dev
    command -v rsync >/dev/null 2>&1 || add rsync
    command -v lintian >/dev/null 2>&1 || add lintian
    command -v debootstrap >/dev/null 2>&1 || add debootstrap
fi
if [ "$tests" = yes ]; then
    # The tests run the system's python3 (scripts/feed-summary.py) and khal.
    if [ ! -x /usr/bin/python3 ]; then
        add python3
        add python3-icalendar
    elif ! /usr/bin/python3 -c 'import icalendar' >/dev/null 2>&1; then
        add python3-icalendar
    fi
    command -v khal >/dev/null 2>&1 || add khal
    # AgeTests: the stock age reads what Sources/Age writes, and writes what it reads.
    { command -v age >/dev/null 2>&1 && command -v age-keygen >/dev/null 2>&1; } || add age
    # scripts/servers/reminder_receiver.py smtp: aiosmtpd 1.4 or later (require_starttls,
    # auth_require_tls, TLS from the first byte); Debian 12 has 1.4.3.
    if [ ! -x /usr/bin/python3 ] || ! /usr/bin/python3 -c 'import aiosmtpd, sys; v = tuple(int(x) for x in aiosmtpd.__version__.split(".")[:2]); sys.exit(v < (1, 4))' >/dev/null 2>&1; then
        add python3-aiosmtpd
    fi
    # `todo serve install`'s unit file is checked with systemd-analyze verify.
    command -v systemd-analyze >/dev/null 2>&1 || add systemd
    # scripts/browser-test.py: a real browser, headless, and its WebDriver.
    command -v chromium >/dev/null 2>&1 || add chromium
    [ -x /usr/bin/chromedriver ] || add chromium-driver
    # pip itself, for selenium below (it is a PyPI package, not an apt one).
    # (and axe-core's axe.min.js, which the axe-playwright-python wheel carries: the browser test
    # runs it through selenium, so none of that package's own dependencies is needed)
    if [ ! -x /usr/bin/python3 ] || ! /usr/bin/python3 -c 'import selenium, axe_playwright_python' >/dev/null 2>&1; then
        selenium=missing
        /usr/bin/python3 -m pip --version >/dev/null 2>&1 || add python3-pip
    fi
    # scripts/caldav/: Debian's python3 has the venv module but not ensurepip without this.
    if [ ! -x /usr/bin/python3 ] || ! /usr/bin/python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
        add python3-venv
    fi
fi

if ! command -v swift >/dev/null 2>&1; then
    echo "scripts/deps.sh: swift is not on PATH. Install Swift 6 for this system from" >&2
    echo "https://www.swift.org/install/linux/ and put its usr/bin on PATH, then run this again." >&2
    if [ -n "$missing" ]; then
        echo "Also missing:$missing (sudo apt-get install -y --no-install-recommends$missing)" >&2
    fi
    exit 1
fi

pip_selenium() { # installs selenium from PyPI for /usr/bin/python3 (as root) or says how
    if [ "${selenium:-}" != missing ]; then
        return 0
    fi
    if [ "$(id -u)" -ne 0 ]; then
        echo "scripts/deps.sh: python3's selenium or axe-playwright-python package is missing" >&2
        echo "install it with: sudo /usr/bin/python3 -m pip install --break-system-packages selenium && sudo /usr/bin/python3 -m pip install --break-system-packages --no-deps axe-playwright-python==0.1.8" >&2
        echo "then run the same make command again." >&2
        exit 1
    fi
    # Debian marks its python3 as managed by apt; selenium is not among its packages at a
    # version that speaks to this Chromium, so it goes beside them.
    /usr/bin/python3 -m pip install --quiet --root-user-action=ignore --break-system-packages selenium
    /usr/bin/python3 -m pip install --quiet --root-user-action=ignore --break-system-packages --no-deps axe-playwright-python==0.1.8
    /usr/bin/python3 -c 'import selenium, axe_playwright_python' # fails loudly if the install did not take
    echo "scripts/deps.sh: installed selenium and axe-playwright-python (PyPI) for /usr/bin/python3"
}

# The CalDAV clients and servers scripts/caldav/ drives, pinned: the tests read their requests
# and answers, which change between versions.
CALDAV_PINNED="caldav==3.6.0 caldav-server-tester==1.7.0 radicale==3.9.0 vdirsyncer==0.21.0 todoman==4.7.0"
caldav_venv() { # makes or updates the CalDAV tools' virtual environment (any user: no root needed)
    if [ "$tests" != yes ]; then
        return 0
    fi
    venv="${XDG_CACHE_HOME:-$HOME/.cache}/todo/caldav-venv"
    marker="$venv/todo-pins.txt"
    if [ -x "$venv/bin/python" ] && [ -f "$marker" ] && [ "$(cat "$marker")" = "$CALDAV_PINNED" ]; then
        return 0
    fi
    if ! [ -x "$venv/bin/python" ] || ! "$venv/bin/python" -c '' >/dev/null 2>&1; then
        rm -rf "$venv"
        mkdir -p "$(dirname "$venv")"
        /usr/bin/python3 -m venv "$venv"
    fi
    rm -f "$marker"
    # shellcheck disable=SC2086
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check $CALDAV_PINNED
    "$venv/bin/python" -c 'import caldav, radicale, vdirsyncer, todoman' # fails loudly if it did not take
    printf '%s\n' "$CALDAV_PINNED" > "$marker"
    echo "scripts/deps.sh: installed $CALDAV_PINNED in $venv"
}

if [ -z "$missing" ]; then
    pip_selenium
    caldav_venv
    echo "scripts/deps.sh: all build packages are installed"
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "scripts/deps.sh: missing:$missing, and there is no apt-get here." >&2
    echo "Install libgit2's and libxml2's development files and pkg-config with your package manager." >&2
    exit 1
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "scripts/deps.sh: missing packages:$missing" >&2
    echo "install them with: sudo apt-get install -y --no-install-recommends$missing" >&2
    echo "then run the same make command again." >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# An old or empty package list makes the install fail: refresh it once and retry.
# shellcheck disable=SC2086
if ! apt-get install -y --no-install-recommends $missing; then
    apt-get update
    apt-get install -y --no-install-recommends $missing
fi
echo "scripts/deps.sh: installed$missing"
pip_selenium
caldav_venv
