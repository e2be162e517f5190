#!/usr/bin/env python3
"""`todo-serve` under load on loopback: requests per second and latency of the "Mine" page and of
a POST "done", in a household of 10,000 tasks; the server's memory after the run; and the start
of `todo --version` and `todo add` in the same household, which the server must not slow.

    python3 scripts/bench-serve.py --todo .build-release/release/todo
        --serve .build-release/release/todo-serve [--tasks 10000] [--clients 4] [--seconds 20]
        [--runs 7] [--baseline-todo OLD] [--json FILE]

The household is scripts/bench/bench.py's (the same generator as `make bench`'s other sections,
`todo import`ed). The server runs with `--sync-every 0` (no remote). Each client is a process of
its own with a session of its own (an invite each, all Alice's devices), HTTP/1.1 keep-alive:
`GET /` (Alice's Mine) for --seconds, then `POST /t/<id>/done` for --seconds, every POST a
different open task, so each one commits (checked afterwards: `main` has one commit per 303).
The server's per-client limits (docs/THREAT-MODEL.md: 120 requests and 30 POSTs per 10 s per
peer address) are for one phone; a client here moves to a new loopback source address
(127.x.y.z) and connection before reaching either, as 4 × many phones would.

Then the connection limits (docs/SERVE.md, "Running for months"): --slow-clients (100)
half-open connections from one address (127.250.0.1), each sending a header line a second and
never ending its head, opened again whenever the server closes one, while another address asks
for `GET /` one request after another for --slow-seconds (10): its p99 must stay under 200 ms.
And restarts: the server stopped (SIGTERM) and started on the same port --restarts (20) times
while a client keeps asking for `/health`; every start must bind (no exit 75), and the time from
each start to its `listening on` line is reported.

Prints a markdown table; --json writes the figures for scripts/bench/bench.py's `serve` section.
Standard library only. Exit 1 when a request failed or the server did not stop cleanly.
"""

import argparse
import json
import multiprocessing
import os
import random
import select
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "servers"))
sys.path.insert(0, os.path.join(HERE, "bench"))
from serve_client import Failed, Server, Session, git, invite, member_env, run  # noqa: E402
from bench import generate_tasks  # noqa: E402
from common import percentile  # noqa: E402

GET_PER_ADDRESS = 100  # < 120 requests per 10 s per peer
POST_PER_ADDRESS = 25  # < 30 POSTs per 10 s per peer


def client(number, port, cookie, csrf, kind, seconds, tasks, results):
    """One client process: requests for `seconds`; puts (latencies ms, failures) on results."""
    session = Session(port)
    session.cookie, session.csrf = cookie, csrf
    latencies, failures = [], []
    per_address = GET_PER_ADDRESS if kind == "get" else POST_PER_ADDRESS
    address = 0
    end = time.perf_counter() + seconds
    i = 0
    while time.perf_counter() < end:
        if i % per_address == 0:
            address += 1
            # Its own block of addresses per client and per kind: the GET run's addresses may
            # still be in the server's 10 s window when the POST run starts.
            block = 10 + number + (0 if kind == "get" else 50)
            session.connect(f"127.{block}.{address // 250}.{1 + address % 250}")
        if kind == "post" and i >= len(tasks):
            failures.append("ran out of open tasks to complete")
            break
        start = time.perf_counter()
        try:
            if kind == "get":
                r = session.get("/")
                ok = r.status == 200
            else:
                r = session.post(f"/t/{tasks[i]}/done", {"csrf": csrf})
                ok = r.status == 303
        except Exception as e:  # counted as a failure, the run goes on
            failures.append(f"{type(e).__name__}: {e}")
            session.close()
            i += 1
            continue
        ms = (time.perf_counter() - start) * 1000
        if ok:
            latencies.append(ms)
        else:
            failures.append(f"{r.status} {r.body[:120]!r}")
        i += 1
    session.close()
    results.put((number, latencies, failures))


def load(server, sessions, kind, seconds, pools):
    results = multiprocessing.Queue()
    procs = [multiprocessing.Process(target=client, args=(n, server.port, s.cookie, s.csrf, kind, seconds,
                                                          pools[n] if pools else [], results))
             for n, s in enumerate(sessions)]
    started = time.perf_counter()
    for p in procs:
        p.start()
    got = []
    for _ in procs:
        got.append(results.get(timeout=seconds + 120))
    elapsed = time.perf_counter() - started
    for p in procs:
        p.join(timeout=30)
    latencies = [ms for _, lat, _ in got for ms in lat]
    failures = [f for _, _, fs in got for f in fs]
    return {
        "requests": len(latencies), "failures": len(failures), "failure_examples": failures[:5],
        "per_second": len(latencies) / elapsed, "p50": percentile(latencies, 50),
        "p99": percentile(latencies, 99), "seconds": elapsed,
    }


class SlowLoris(threading.Thread):
    """`count` half-open connections from one address: each sends a request head's first line
    and then a header line every second, never the blank line that ends the head; one the server
    closes is opened again at once. `.held` is the most that the server kept open at one time
    (counted at each round of header lines, among those open for half a second or more: the
    server closes one over its cap as soon as it accepts it), `.closed` how many it closed."""

    def __init__(self, port, source, count):
        super().__init__(daemon=True)
        self.port, self.source, self.count = port, source, count
        self.stop = threading.Event()
        self.held = 0
        self.closed = 0
        self.opened = 0

    def open_one(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(True)
        s.settimeout(5)
        s.bind((self.source, 0))
        s.connect(("127.0.0.1", self.port))
        s.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n".encode())
        s.setblocking(False)
        self.opened += 1
        return s

    def run(self):
        conns = []
        opened_at = {}
        last_line = time.monotonic()
        while not self.stop.is_set():
            while len(conns) < self.count and not self.stop.is_set():
                try:
                    c = self.open_one()
                except OSError:
                    break
                conns.append(c)
                opened_at[c] = time.monotonic()
            readable, _, _ = select.select(conns, [], [], 0.05) if conns else ([], [], [])
            for c in readable:
                try:
                    data = c.recv(4096)
                except OSError:
                    data = b""
                if not data:
                    self.closed += 1
                    conns.remove(c)
                    opened_at.pop(c, None)
                    c.close()
            if time.monotonic() - last_line >= 1:
                last_line = time.monotonic()
                self.held = max(self.held, sum(1 for c in conns if last_line - opened_at[c] >= 0.5))
                for c in list(conns):
                    try:
                        c.send(b"X-Slow: 1\r\n")
                    except OSError:
                        pass
        for c in conns:
            c.close()


def slow_clients(server, cookie, seconds, count=100):
    """GET / from one address, one request after another for `seconds`, while SlowLoris holds
    `count` half-open connections from another."""
    loris = SlowLoris(server.port, "127.250.0.1", count)
    loris.start()
    # Let the half-open connections be made before the measured requests start.
    deadline = time.monotonic() + 10
    while loris.opened < count and time.monotonic() < deadline:
        time.sleep(0.05)
    session = Session(server.port)
    session.cookie = cookie
    latencies, failures = [], []
    end = time.perf_counter() + seconds
    i = 0
    while time.perf_counter() < end:
        if i % GET_PER_ADDRESS == 0:
            session.connect(f"127.251.{i // GET_PER_ADDRESS // 250}.{1 + (i // GET_PER_ADDRESS) % 250}")
        start = time.perf_counter()
        try:
            r = session.get("/")
            if r.status == 200:
                latencies.append((time.perf_counter() - start) * 1000)
            else:
                failures.append(f"{r.status}")
        except Exception as e:  # counted, the run goes on
            failures.append(f"{type(e).__name__}: {e}")
            session.close()
        i += 1
    session.close()
    loris.stop.set()
    loris.join(timeout=30)
    return {
        "half_open": count, "held_at_once": loris.held, "closed_by_server": loris.closed,
        "requests": len(latencies), "failures": len(failures), "failure_examples": failures[:5],
        "p50": percentile(latencies, 50), "p99": percentile(latencies, 99), "seconds": seconds,
    }


def restart_loop(serve, env, port, rounds):
    """Stops (SIGTERM) and starts the server on the same port `rounds` times while a client
    keeps asking for /health; each start must bind (no exit 75). The time from each start to
    its `listening on` line, and what the client saw."""
    stop = threading.Event()
    seen = {"ok": 0, "refused": 0, "other": 0}

    def keep_asking():
        while not stop.is_set():
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                    s.sendall(f"GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
                    answer = b""
                    while True:
                        chunk = s.recv(4096)
                        if not chunk:
                            break
                        answer += chunk
                seen["ok" if answer.startswith(b"HTTP/1.1 200") else "other"] += 1
            except ConnectionRefusedError:
                seen["refused"] += 1
                time.sleep(0.005)  # between runs: no busy loop beside the starting server
            except OSError:
                seen["other"] += 1

    asker = threading.Thread(target=keep_asking, daemon=True)
    asker.start()
    binds, failures = [], []
    try:
        for n in range(rounds):
            start = time.perf_counter()
            try:
                server = Server(serve, env, ["--sync-every", "0", "--listen", f"127.0.0.1:{port}"],
                                log_path=os.path.join(env["HOME"], f"todo-serve-restart-{n}.log"))
            except Failed as e:
                failures.append(f"start {n + 1}: {e}")
                continue
            binds.append((time.perf_counter() - start) * 1000)
            # A few answers from this run before it is stopped.
            answered = seen["ok"]
            deadline = time.monotonic() + 5
            while seen["ok"] < answered + 3 and time.monotonic() < deadline:
                time.sleep(0.01)
            code = server.stop()
            if code != 0:
                failures.append(f"stop {n + 1}: exit {code}")
    finally:
        stop.set()
        asker.join(timeout=30)
    return {
        "rounds": rounds, "bound": len(binds), "bind_ms_median": statistics.median(binds) if binds else None,
        "bind_ms_max": max(binds) if binds else None, "answers": seen, "failures": failures,
    }


def single_post_against_cli(todo, env, session, ids, pairs):
    """`POST /t/<id>/done` from one client, alternated with `todo done <id>` of another task; the
    medians in ms. Each POST from a new loopback address, under the per-address limits."""
    web, cli, failures = [], [], []
    for i in range(pairs):
        session.connect(f"127.8.{i // 200}.{i % 200 + 2}")
        a, b = ids[2 * i], ids[2 * i + 1]
        t0 = time.perf_counter()
        r = session.post(f"/t/{a}/done", {"back": "/"})
        web.append((time.perf_counter() - t0) * 1000)
        if r.status != 303:
            failures.append(f"POST /t/{a}/done answered {r.status}")
        t0 = time.perf_counter()
        run([todo, "done", b], env)
        cli.append((time.perf_counter() - t0) * 1000)
    session.close()
    return {"pairs": pairs, "post_ms": statistics.median(web), "todo_done_ms": statistics.median(cli), "failures": failures}


def medians_ms(binaries, args, env, runs):
    """The median wall time of `BINARY ARGS(i)` for each binary, taking turns run by run
    (which goes first alternates), after one untimed round."""
    times = {b: [] for b in binaries}
    for i in range(runs + 1):
        for b in (binaries if i % 2 else list(reversed(binaries))):
            start = time.perf_counter()
            subprocess.run([b] + args(i, b), env=env, check=True, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
            if i:
                times[b].append((time.perf_counter() - start) * 1000)
    return [statistics.median(times[b]) for b in binaries]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--todo", required=True)
    parser.add_argument("--serve", required=True)
    parser.add_argument("--tasks", type=int, default=10000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--runs", type=int, default=7, help="runs of each start-time figure (median)")
    parser.add_argument("--baseline-todo", help="an earlier todo whose --version and add start times are "
                        "measured alternated with this one's")
    parser.add_argument("--slow-clients", type=int, default=100,
                        help="half-open connections one address holds while another's requests are timed")
    parser.add_argument("--slow-seconds", type=float, default=10)
    parser.add_argument("--restarts", type=int, default=20, help="stops and starts on one port")
    parser.add_argument("--json", help="write the figures here as JSON")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    todo, serve = os.path.abspath(args.todo), os.path.abspath(args.serve)
    baseline = os.path.abspath(args.baseline_todo) if args.baseline_todo else None

    tmp = tempfile.mkdtemp(prefix="todo-bench-serve.")
    env = member_env(tmp, "Alice")
    server = None
    figures = {"tasks": args.tasks, "clients": args.clients, "seconds": args.seconds}
    failed = []
    try:
        run([todo, "init", "--name", "Alice", "--email", "alice@example.org"], env)
        tasks = generate_tasks(args.tasks, random.Random(f"serve-{args.tasks}"))
        data = os.path.join(tmp, "tasks.json")
        with open(data, "w") as f:
            json.dump(tasks, f)
        run([todo, "import", data], env, timeout=600)
        run([todo, "list"], env)  # the list cache, as a household in use has it
        print(f"bench-serve: a household of {args.tasks:,} tasks", file=sys.stderr, flush=True)

        # Start times first, with no server running: what a command pays for the server being
        # built beside it (nothing, if it stays out of todo's link).
        binaries = [todo] + ([baseline] if baseline else [])
        versions = medians_ms(binaries, lambda i, b: ["--version"], env, args.runs)
        adds = medians_ms(binaries, lambda i, b: ["add", f"Start task {i} {binaries.index(b)}", "--due", "+3d",
                                                  "--tag", "bench"], env, args.runs)
        figures["version_ms"], figures["add_ms"] = versions[0], adds[0]
        if baseline:
            figures["baseline_version_ms"], figures["baseline_add_ms"] = versions[1], adds[1]

        serve_env = dict(env, TODO_SERVE_TODO=todo)
        server = Server(serve, serve_env, ["--sync-every", "0"])
        sessions = []
        for n in range(args.clients):
            s = Session(server.port, source=f"127.{10 + n}.255.1")
            s.sign_in(invite(serve, serve_env, "Alice", server.base))
            page = s.get("/")
            if page.status != 200 or not s.csrf:
                raise Failed(f"GET / answered {page.status}{'' if s.csrf else ' with no csrf field'} after signing in")
            s.close()
            sessions.append(s)
        figures["mine_bytes"] = len(page.body.encode())
        for _ in range(5):  # warm: the server's parsed tasks for this main
            sessions[0].connect(f"127.9.0.{2 + _}")
            sessions[0].get("/")
        sessions[0].close()

        print(f"bench-serve: GET / with {args.clients} clients for {args.seconds:g} s", file=sys.stderr, flush=True)
        figures["get"] = load(server, sessions, "get", args.seconds, None)
        open_ids = [t["id"] for t in json.loads(run([todo, "list", "--json"], env, timeout=120))
                    if t.get("status") == "open" and "repeat" not in t]
        random.Random("serve-post").shuffle(open_ids)
        # The last ones for the single client below, the rest for the load.
        pools = [open_ids[:-args.runs * 6][n::args.clients] for n in range(args.clients)]
        before = int(git(env, "rev-list", "--count", "main").strip())
        print(f"bench-serve: POST /t/<id>/done with {args.clients} clients for {args.seconds:g} s",
              file=sys.stderr, flush=True)
        figures["post"] = load(server, sessions, "post", args.seconds, pools)
        hwm, rss = server.rss_kib()
        figures["vmhwm_kib"], figures["vmrss_kib"] = hwm, rss
        after = int(git(env, "rev-list", "--count", "main").strip())
        figures["post"]["commits"] = after - before
        if after - before != figures["post"]["requests"]:
            failed.append(f"{figures['post']['requests']} POSTs answered 303 but main has {after - before} new commits")
        for kind in ("get", "post"):
            if figures[kind]["failures"]:
                failed.append(f"{figures[kind]['failures']} {kind.upper()} requests failed, e.g. "
                              f"{figures[kind]['failure_examples'][:3]}")

        # One client alone, alternated with `todo done` on the same household: a change from the
        # page against the same change from the CLI, process start included.
        print(f"bench-serve: one POST done alternated with one todo done, {args.runs * 3} each",
              file=sys.stderr, flush=True)
        figures["single"] = single_post_against_cli(todo, env, sessions[0], open_ids[-args.runs * 6:], args.runs * 3)
        failed += figures["single"]["failures"]

        print(f"bench-serve: GET / from one address while another holds {args.slow_clients} half-open "
              f"connections, {args.slow_seconds:g} s", file=sys.stderr, flush=True)
        figures["slow"] = slow_clients(server, sessions[0].cookie, args.slow_seconds, args.slow_clients)
        if figures["slow"]["failures"]:
            failed.append(f"{figures['slow']['failures']} requests failed beside the half-open connections, e.g. "
                          f"{figures['slow']['failure_examples'][:3]}")
        elif figures["slow"]["p99"] is None or figures["slow"]["p99"] >= 200:
            failed.append(f"beside {args.slow_clients} half-open connections GET / took p99 "
                          f"{figures['slow']['p99']} ms, not under 200 ms")

        port = server.port
        code = server.stop()
        server = None
        figures["exit"] = code
        if code != 0:
            failed.append(f"todo-serve exited {code} on SIGTERM before the restart loop, not 0")
        print(f"bench-serve: {args.restarts} stops and starts on port {port} while a client keeps asking",
              file=sys.stderr, flush=True)
        figures["restart"] = restart_loop(serve, serve_env, port, args.restarts)
        failed += figures["restart"]["failures"]
    except Failed as e:
        failed.append(str(e))
    finally:
        if server:
            code = server.stop()
            figures["exit"] = code
            if code != 0:
                failed.append(f"todo-serve exited {code} on SIGTERM, not 0 (stderr: {server.stderr_tail()})")
        if args.keep:
            print(f"bench-serve: kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    figures["failed"] = failed
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)
    print(table(figures))
    for f in failed:
        print(f"bench-serve: FAILED: {f}", file=sys.stderr)
    return 1 if failed else 0


def table(f):
    lines = [f"| {f['tasks']:,} tasks, {f['clients']} clients, {f['seconds']:g} s each | requests/s | p50 ms | p99 ms | requests |",
             "|---|---:|---:|---:|---:|"]
    for kind, label in (("get", "`GET /` (Mine)"), ("post", "`POST /t/<id>/done` (each a commit)")):
        if kind in f:
            r = f[kind]
            lines.append(f"| {label} | {r['per_second']:.0f} | {r['p50']:.1f} | {r['p99']:.1f} | {r['requests']:,} |"
                         if r["p50"] is not None else f"| {label} | — | — | — | 0 |")
    if f.get("single"):
        r = f["single"]
        lines.append(f"| `POST /t/<id>/done`, one client, alternated with `todo done` "
                     f"({r['todo_done_ms']:.1f} ms; {r['post_ms'] / r['todo_done_ms']:.2f}×) | — | "
                     f"{r['post_ms']:.1f} | — | {r['pairs']} |")
    if f.get("slow") and f["slow"]["p50"] is not None:
        r = f["slow"]
        lines.append(f"| `GET /` beside {r['half_open']} half-open connections from one address "
                     f"(the server held {r['held_at_once']} at once) | {r['requests'] / r['seconds']:.0f} | "
                     f"{r['p50']:.1f} | {r['p99']:.1f} | {r['requests']:,} |")
    if f.get("restart"):
        r = f["restart"]
        lines.append(f"\nRestarts: {r['bound']} of {r['rounds']} starts bound the same port, "
                     + (f"median {r['bind_ms_median']:.0f} ms and at most {r['bind_ms_max']:.0f} ms from start to listening; "
                        if r["bound"] else "")
                     + f"the client meanwhile: {r['answers']['ok']} answers, {r['answers']['refused']} refused "
                       f"(between runs), {r['answers']['other']} other.")
    if f.get("vmhwm_kib"):
        lines.append(f"\nServer memory after the run: VmHWM {f['vmhwm_kib'] / 1024:.1f} MB, "
                     f"VmRSS {f['vmrss_kib'] / 1024:.1f} MB.")
    if "version_ms" in f:
        line = f"`todo --version` {f['version_ms']:.1f} ms, `todo add` {f['add_ms']:.1f} ms (medians, same household)"
        if "baseline_version_ms" in f:
            line += (f"; the baseline: {f['baseline_version_ms']:.1f} and {f['baseline_add_ms']:.1f} ms, "
                     "alternated with them")
        lines.append(line + ".")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
