#!/usr/bin/env python3
"""Runs the whole test suite in parallel jobs: what `make test` does after building.

    scripts/run-tests.py --bundle .build/debug/todoPackageTests.xctest [--jobs N] [--extra NAME=COMMAND]...

The Swift test suites are split between N processes of the test bundle (each runs its suites
one test at a time, `--no-parallel`, so that a test's time limit counts from when it starts),
and each `--extra` command (the browser test, the convergence run) is one more job beside them.
Suites are given to the processes longest first, by the seconds each took in the last run
(scripts/test-times.tsv; a suite not in it counts as DEFAULT_SECONDS). Each complete run
writes what it measured to suite-times.tsv in --logs: copy it over scripts/test-times.tsv when
suites were added or became slower. Every job's output goes to its own log in --logs; the run prints one line
per job as it ends, then each failure's lines, and exits non-zero if any job failed.

Independent suites only: every test makes its own temporary folders and servers on free ports
(Tests/TestKit), so suites in different processes never share anything.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TIMES = os.path.join(HERE, "test-times.tsv")
DEFAULT_SECONDS = 5.0
SUITE_LINE = re.compile(r"^[✔✘] Suite (\S+) (passed|failed) after ([0-9.]+) seconds")


def read_times(path):
    times = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("#") or not line.strip():
                    continue
                name, seconds = line.rstrip("\n").split("\t")[:2]
                times[name] = float(seconds)
    except FileNotFoundError:
        pass
    return times


def list_suites(bundle):
    """Top-level suites as `Module.Suite`, from the bundle's own list of tests."""
    out = subprocess.run(
        [bundle, "--testing-library", "swift-testing", "--list-tests"],
        capture_output=True, text=True, timeout=300, check=True).stdout
    suites = []
    for line in out.splitlines():
        line = line.strip()
        if "/" not in line:
            continue
        suite = line.split("/", 1)[0]
        if suite not in suites:
            suites.append(suite)
    return suites


def shard(suites, times, jobs):
    """Longest processing time first: each suite to the job with the least so far."""
    loads = [[0.0, []] for _ in range(jobs)]
    for suite in sorted(suites, key=lambda s: (-times.get(s.split(".", 1)[1], DEFAULT_SECONDS), s)):
        target = min(loads, key=lambda load: load[0])
        target[0] += times.get(suite.split(".", 1)[1], DEFAULT_SECONDS)
        target[1].append(suite)
    return [names for _, names in loads if names]


class Job:
    def __init__(self, name, argv, log):
        self.name, self.argv, self.log = name, argv, log
        self.code = None
        self.seconds = 0.0

    def run(self, env, limit):
        started = time.monotonic()
        with open(self.log, "w", encoding="utf-8") as out:
            proc = subprocess.Popen(self.argv, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
            try:
                self.code = proc.wait(timeout=limit)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
                proc.wait()
                out.write(f"\nrun-tests: {self.name} did not finish within {limit} s and was stopped\n")
                self.code = 124
        self.seconds = time.monotonic() - started


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bundle", required=True, help="the test bundle (.build/debug/todoPackageTests.xctest)")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("TEST_JOBS", "3")),
                    help="processes of the test bundle at once (TEST_JOBS, default 3)")
    ap.add_argument("--extra", action="append", default=[], metavar="NAME=COMMAND",
                    help="another job beside the suites (a shell command)")
    ap.add_argument("--logs", default=".build/test-logs", help="where each job's output goes")
    ap.add_argument("--filter", help="only suites whose name matches this regular expression")
    ap.add_argument("--limit", type=int, default=2400, help="seconds after which a job is stopped (default 2400)")
    args = ap.parse_args()

    os.makedirs(args.logs, exist_ok=True)
    for old in os.listdir(args.logs):
        if old.endswith(".log"):
            os.remove(os.path.join(args.logs, old))
    times = read_times(TIMES)
    suites = list_suites(args.bundle)
    if args.filter:
        suites = [s for s in suites if re.search(args.filter, s)]
    groups = shard(suites, times, max(1, args.jobs))
    jobs = []
    for i, group in enumerate(groups, 1):
        pattern = "^(" + "|".join(re.escape(s) for s in group) + ")/"
        argv = [args.bundle, "--testing-library", "swift-testing", "--no-parallel", "--filter", pattern]
        jobs.append(Job(f"suites {i}/{len(groups)} ({len(group)} suites)", argv, os.path.join(args.logs, f"suites-{i}.log")))
    for extra in args.extra:
        name, _, command = extra.partition("=")
        jobs.append(Job(name, ["sh", "-c", command], os.path.join(args.logs, f"{name}.log")))

    print(f"run-tests: {len(suites)} suites in {len(groups)} processes, and {len(args.extra)} more jobs; logs in {args.logs}", flush=True)
    started = time.monotonic()
    lock = threading.Lock()

    def run(job):
        job.run(os.environ.copy(), args.limit)
        with lock:
            state = "passed" if job.code == 0 else f"FAILED (exit {job.code})"
            print(f"run-tests: {job.name} {state} after {job.seconds:.0f} s", flush=True)

    threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    # Each suite's time, for the next run's shares and for README's table.
    measured = {}
    failed_lines = []
    for job in jobs:
        with open(job.log, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = SUITE_LINE.match(line)
                if m:
                    measured[m.group(1)] = float(m.group(3))
                if job.code != 0 and (line.startswith("✘") or "run-tests:" in line or "Traceback" in line or "FAIL" in line):
                    failed_lines.append(f"{job.name}: {line.rstrip()}")
    failures = [job for job in jobs if job.code != 0]
    total = time.monotonic() - started
    if failures:
        print("\nrun-tests: failures:")
        for line in failed_lines[:200]:
            print("  " + line)
        for job in failures:
            print(f"run-tests: the whole output of {job.name}: {job.log}")
        print(f"run-tests: {len(failures)} of {len(jobs)} jobs failed, {total:.0f} s in all")
        return 1
    if not args.filter and measured:
        with open(os.path.join(args.logs, "suite-times.tsv"), "w", encoding="utf-8") as f:
            f.write("# suite\tseconds in a complete run of scripts/run-tests.py; shares the suites between processes\n")
            for name in sorted(measured):
                f.write(f"{name}\t{measured[name]:.1f}\n")
    print(f"run-tests: all {len(jobs)} jobs passed, {total:.0f} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
