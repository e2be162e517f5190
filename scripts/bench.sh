#!/usr/bin/env bash
# make bench: todo's speed beside the git CLI doing the same work, as a markdown table.
#
#   TODO_BIN     the todo binary to measure (default: a release build, made here if missing)
#   TODO_SERVE_BIN  the todo-serve binary for the `serve` section (default: the release build
#                beside TODO_BIN when there is one; without it the section is skipped)
#   BENCH_RUNS   timed runs per figure; every figure is their median (default 7, at least 7
#                for figures worth quoting)
#   BENCH_OUT    where the table is written (default ./bench-results.md); it is also printed
#   BENCH_SIZES  household sizes for the everyday commands (default 100,1000,10000)
#   BENCH_BASELINE  another todo binary (say, a release build of an earlier main), measured
#                beside this one as the "before": its ssh sync and its plain-task list and done
# Further arguments go to scripts/bench/bench.py (--only store,flat,chores,calendar,slow,sync,serve,scale,ssh to run some
# of the sections, --no-ssh, --keep).
# Needs python3, git, and for the ssh figures sshd and ssh-keygen (scripts/servers/install.sh).
set -euo pipefail

cd "$(dirname "$0")/.."
if [ -z "${TODO_BIN:-}" ]; then
    make -s release
    TODO_BIN=$PWD/.build-release/release/todo
fi
if [ ! -x "$TODO_BIN" ]; then
    echo "scripts/bench.sh: no todo binary at $TODO_BIN" >&2
    exit 1
fi

serve_bin=${TODO_SERVE_BIN:-$(dirname "$TODO_BIN")/todo-serve}
exec python3 scripts/bench/bench.py \
    --todo "$TODO_BIN" \
    --serve "$serve_bin" \
    --runs "${BENCH_RUNS:-7}" \
    --sizes "${BENCH_SIZES:-100,1000,10000}" \
    --out "${BENCH_OUT:-bench-results.md}" \
    ${BENCH_BASELINE:+--baseline-todo "$BENCH_BASELINE"} \
    "$@"
